# kestrel_add_device_module(): see tools/kestrel-cc

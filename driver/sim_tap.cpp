// Loading a tap observer plug-in (sim_tap.hpp).
#include "kestrel/driver/sim_tap.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "kestrel/error.hpp"

namespace kestrel::tap {
namespace {

std::vector<std::string> search_dirs() {
  std::vector<std::string> dirs;
  if (const char* path = std::getenv("KESTREL_PLUGIN_PATH"); path != nullptr) {
    std::string text = path;
    size_t from = 0;
    while (from <= text.size()) {
      const size_t colon = text.find(':', from);
      const std::string dir =
          text.substr(from, colon == std::string::npos ? std::string::npos : colon - from);
      if (!dir.empty()) dirs.push_back(dir);
      if (colon == std::string::npos) break;
      from = colon + 1;
    }
  }
  // Compiled in by CMake (driver/CMakeLists.txt): the build tree's plug-in
  // folder, then the installed one.
  dirs.push_back(KESTREL_PLUGIN_BUILD_DIR);
  dirs.push_back(KESTREL_PLUGIN_INSTALL_DIR);
  return dirs;
}

// A loaded plug-in stays loaded for the life of the process: observers it
// made may outlive any one backend, and unloading code whose objects may
// still exist buys nothing.
void* open_plugin(const std::string& name, std::string& tried) {
  for (const std::string& dir : search_dirs()) {
    const std::string file = dir + "/libkestrel-" + name + ".so";
    if (void* handle = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL)) return handle;
    const char* why = dlerror();
    tried += "\n  " + file + ": " + (why != nullptr ? why : "not loadable");
  }
  return nullptr;
}

}  // namespace

std::unique_ptr<Observer> load_observer(const std::string& name, const ObserverArgs& args) {
  std::string tried;
  void* handle = open_plugin(name, tried);
  if (handle == nullptr) {
    throw Error(KESTREL_ERROR_NOT_SUPPORTED, "tap: no observer plug-in '" + name +
                                                 "' (build the project's verif/ targets, or set "
                                                 "KESTREL_PLUGIN_PATH); looked for:" +
                                                 tried);
  }
  auto version = reinterpret_cast<kestrel_tap_version_fn>(dlsym(handle, "kestrel_tap_version"));
  auto make = reinterpret_cast<kestrel_tap_make_observer_fn>(dlsym(handle, "kestrel_tap_make_observer"));
  if (version == nullptr || make == nullptr) {
    throw Error(KESTREL_ERROR_NOT_SUPPORTED, "tap: plug-in '" + name + "' exports no observer");
  }
  if (version() != kVersion) {
    throw Error(KESTREL_ERROR_NOT_SUPPORTED, "tap: plug-in '" + name + "' speaks tap version " +
                                                 std::to_string(version()) + ", this backend " +
                                                 std::to_string(kVersion));
  }
  std::unique_ptr<Observer> observer(make(&args));
  if (!observer) throw Error(KESTREL_ERROR_NOT_SUPPORTED, "tap: plug-in '" + name + "' made no observer");
  return observer;
}

}  // namespace kestrel::tap

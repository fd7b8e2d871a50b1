// Backend selection: the one place that knows which backends exist.
#include <cstdlib>
#include <string>

#include "kestrel/driver/run_config.hpp"
#include "kestrel/error.hpp"
#include "kestrel/transport.hpp"

#ifdef KESTREL_HAVE_MODEL
#include "kestrel/model/model_transport.hpp"
#endif

#ifdef KESTREL_HAVE_RTLSIM
namespace kestrel::rtlsim {
// Defined by driver/rtlsim/ (the Verilated RTL backend).
std::unique_ptr<Transport> make_rtlsim_transport(const BackendConfig& config);
}  // namespace kestrel::rtlsim
#endif

#include "fpga_transport.hpp"

#ifdef KESTREL_HAVE_SYSTEMC
namespace kestrel::systemc {
// Defined by platform/systemc/ (the TLM-2.0 platform around the RTL).
std::unique_ptr<Transport> make_systemc_transport(const BackendConfig& config);
}  // namespace kestrel::systemc
#endif

namespace kestrel {
namespace {

std::string built_backends() {
  std::string names;
#ifdef KESTREL_HAVE_MODEL
  names += " model";
#endif
#ifdef KESTREL_HAVE_RTLSIM
  names += " rtlsim";
#endif
#ifdef KESTREL_HAVE_SYSTEMC
  names += " systemc";
#endif
#ifdef KESTREL_HAVE_LIBUSB
  names += " fpga";
#endif
#ifdef KESTREL_HAVE_FPGA_SIM
  names += " fpga-sim";
#endif
  return names.empty() ? " (none)" : names;
}

}  // namespace

std::string default_backend() {
  const char* from_env = std::getenv("KESTREL_BACKEND");
  if (from_env != nullptr && *from_env != '\0') return from_env;
  if (std::string configured = driver::run_config_from_environment().backend; !configured.empty())
    return configured;
#if defined(KESTREL_HAVE_RTLSIM) && !defined(KESTREL_RTLSIM_NOT_DEFAULT)
  return "rtlsim";
#else
  return "model";
#endif
}

std::unique_ptr<Transport> open_transport(const std::string& backend, const BackendConfig& config) {
  const std::string name = backend.empty() ? default_backend() : backend;
  if (name == "model") {
#ifdef KESTREL_HAVE_MODEL
    return model::make_model_transport(config);
#else
    throw Error(KESTREL_ERROR_NO_DEVICE,
                "backend 'model' was not built (built backends:" + built_backends() + ")");
#endif
  }
  if (name == "rtlsim") {
#ifdef KESTREL_HAVE_RTLSIM
    return rtlsim::make_rtlsim_transport(config);
#else
    throw Error(KESTREL_ERROR_NO_DEVICE,
                "backend 'rtlsim' was not built (configure with KESTREL_BUILD_RTL=ON and Verilator; built "
                "backends:" +
                    built_backends() + ")");
#endif
  }
  if (name == "systemc") {
#ifdef KESTREL_HAVE_SYSTEMC
    return systemc::make_systemc_transport(config);
#else
    throw Error(KESTREL_ERROR_NO_DEVICE,
                "backend 'systemc' was not built (configure with KESTREL_BUILD_RTL=ON, Verilator and "
                "libsystemc-dev; built backends:" +
                    built_backends() + ")");
#endif
  }
  if (name == "fpga-sim") {
#ifdef KESTREL_HAVE_FPGA_SIM
    return fpga::make_fpga_sim_transport(config);
#else
    throw Error(KESTREL_ERROR_NO_DEVICE,
                "backend 'fpga-sim' was not built (configure with KESTREL_BUILD_RTL=ON and Verilator; built "
                "backends:" +
                    built_backends() + ")");
#endif
  }
  if (name == "fpga") {
#ifdef KESTREL_HAVE_LIBUSB
    return fpga::make_fpga_transport(config);
#else
    throw Error(
        KESTREL_ERROR_NO_DEVICE,
        "backend 'fpga' was not built (it needs libusb-1.0: Debian's libusb-1.0-0-dev; built backends:" +
            built_backends() + ")");
#endif
  }
  (void)config;
  throw Error(KESTREL_ERROR_NO_DEVICE,
              "unknown backend '" + name +
                  "' (known: model, rtlsim, systemc, fpga, fpga-sim; built:" + built_backends() + ")");
}

}  // namespace kestrel

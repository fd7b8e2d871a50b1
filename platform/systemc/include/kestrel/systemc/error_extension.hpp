// A TLM extension through which a Kestrel component says why it answered a
// transaction with an error: the kestrel_status and message that the
// driver backend turns back into kestrel::Error.  Initiators that do not
// attach it still get the TLM response status.
#pragma once

#include <tlm>

#include <string>

#include "kestrel/status.h"

namespace kestrel::systemc {

struct ErrorExtension : tlm::tlm_extension<ErrorExtension> {
  kestrel_status status = KESTREL_SUCCESS;
  std::string message;

  tlm::tlm_extension_base* clone() const override { return new ErrorExtension(*this); }
  void copy_from(const tlm::tlm_extension_base& other) override {
    *this = static_cast<const ErrorExtension&>(other);
  }
};

}  // namespace kestrel::systemc

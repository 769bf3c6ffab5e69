// Stands in for MIOpen, the library ZLUDA's cuDNN needs: the tests build a fake cuDNN that links
// against it and then leave it out of the runtime folder.
#include "fake_export.hpp"

ZCUDA_EXPORT int zcuda_fake_miopen_create() { return 0; }

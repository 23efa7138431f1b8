/* CGreenroomPlugin is a header-only ABI; this file makes it a C target SwiftPM can build, and checks
   at compile time that the version-1 layout never changes by accident (fields are only appended). */
#include "greenroom_plugin.h"

_Static_assert(offsetof(greenroom_class, abi_version) == 0, "abi_version comes first");
_Static_assert(offsetof(greenroom_class, struct_size) == 4, "struct_size comes second");
_Static_assert(offsetof(greenroom_host_api, abi_version) == 0, "abi_version comes first");
_Static_assert(offsetof(greenroom_host_api, struct_size) == 4, "struct_size comes second");
#if UINTPTR_MAX == 0xffffffffffffffffu
_Static_assert(offsetof(greenroom_class, optional_hooks) == 80, "greenroom_class v1 is 80 bytes on 64-bit targets");
_Static_assert(sizeof(greenroom_class) == 88, "optional_hooks is the one field appended since v1");
_Static_assert(sizeof(greenroom_host_api) == 48, "greenroom_host_api v1 is 48 bytes on 64-bit targets");
#endif

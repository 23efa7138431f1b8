// wslay (Debian libwslay-dev): RFC 6455 frames, event-loop agnostic. Debian ships no pkg-config file
// for it, so the module map links it by name.
#include <wslay/wslay.h>

// nettle (Debian nettle-dev): SHA-1 and base64 for the WebSocket handshake's Sec-WebSocket-Accept.
#include <nettle/sha1.h>
#include <nettle/base64.h>

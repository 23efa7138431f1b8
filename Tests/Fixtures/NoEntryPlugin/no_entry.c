/* A shared library that misspells the entry point: the host must name the symbol it looked for. */
#include <greenroom_plugin.h>

GREENROOM_PLUGIN_EXPORT int greenroom_plugin_initialize(const greenroom_host_api *api, greenroom_host *host) {
    (void)api;
    (void)host;
    return 0;
}

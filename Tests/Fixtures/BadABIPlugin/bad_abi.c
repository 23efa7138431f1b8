/* A plugin built against a future, incompatible ABI: the host must refuse it before calling init. */
#include <greenroom_plugin.h>
#include <string.h>

GREENROOM_PLUGIN_EXPORT uint32_t greenroom_plugin_abi_version(void) { return GREENROOM_PLUGIN_ABI_VERSION + 1; }

static void *create(void *class_ctx, const char *id, greenroom_call *call) { (void)id; (void)call; return class_ctx; }
static int hook(void *i, const char *h, const char *in, size_t n, greenroom_call *call) {
    (void)i; (void)h; (void)in; (void)n; (void)call;
    return 0;
}
static void destroy(void *instance) { (void)instance; }

/* Were init called anyway, its class table carries the same future version. */
GREENROOM_PLUGIN_EXPORT int greenroom_plugin_init(const greenroom_host_api *api, greenroom_host *host) {
    static int ctx;
    greenroom_class table;
    memset(&table, 0, sizeof table);
    table.abi_version = GREENROOM_PLUGIN_ABI_VERSION + 1;
    table.struct_size = sizeof table;
    table.name = "BadABI";
    table.class_ctx = &ctx;
    table.create = create;
    table.hook = hook;
    table.destroy = destroy;
    return api->register_class(host, &table);
}

/*
 * Crashy — a plugin that misbehaves on request, to rehearse a plugin crash against your own UI or
 * script without writing C. Written against greenroom_plugin.h only.
 *
 * A container's data (from `init` or `configure`) may carry
 *   {"crash": MODE, "on": HOOK, "ms": N, "bytes": N, "status": N}
 * MODE is what the hook named by "on" does (default: the hook receiving the data, so
 * `container.configure {data: {"crash": "abort"}}` aborts in that very configure):
 *   "abort"     calls abort()                        (the worker dies of SIGABRT)
 *   "null"      writes through a NULL pointer        (SIGSEGV)
 *   "exit"      calls exit(status), default 3
 *   "sleep"     sleeps "ms" milliseconds (default 10000), then succeeds: past the hook deadline, the
 *               host kills the worker; under it, it is just a slow hook
 *   "spin"      loops for ever
 *   "oversize"  sets "bytes" bytes of output (default 2 MiB): over the host's output limit
 *   "fail"      returns an error the ordinary way (set_error)
 *   "wait"      opens "path" (a FIFO) and reads until its writer closes it, then succeeds, once: a
 *               hook that takes as long as a test or script wants, released by `echo > PATH`
 * With "next": true the data arms the class instead of the container: the next hook named "on" that any
 *   Crashy container runs, after "after" others of that name (default 0), misbehaves, once. This is how a
 *   pooled container, which no client can configure, is made to fail in the hook of your choice (say, the
 *   willMoveToParent of a showRendered hit's hand-over).
 * {"crash": null} clears it. A hook that does not misbehave succeeds; `configure` returns
 *   {"calls": N, "pid": P}: how many hooks this instance ran and the process it runs in.
 */
#define _POSIX_C_SOURCE 200809L
#include <greenroom_plugin.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

GREENROOM_PLUGIN_EXPORT_ABI_VERSION()

static const greenroom_host_api *host_api;

typedef struct crashy {
    unsigned long calls;
    char mode[16];   /* empty: behave */
    char on[32];     /* the hook that misbehaves */
    long ms;
    long bytes;
    int status;
    char path[256];  /* "wait": the FIFO to read */
} crashy;

/* What "next": true armed for the class (mode[0] == 0: nothing), and how many hooks of that name pass first. */
static crashy armed;
static long armed_skip;

static void *crashy_create(void *class_ctx, const char *container_id, greenroom_call *call) {
    (void)class_ctx;
    (void)container_id;
    crashy *c = calloc(1, sizeof *c);
    if (!c) host_api->set_error(call, "out of memory");
    return c;
}

/* Reads {"crash", "on", "ms", "bytes", "status"} from data; `hook` is the hook that carried it. */
static void read_data(crashy *c, json_t *data, const char *hook) {
    if (!json_is_object(data)) return;
    json_t *crash = json_object_get(data, "crash");
    if (!crash) return;
    if (json_is_null(crash) || !json_is_string(crash)) {
        c->mode[0] = 0;
        return;
    }
    snprintf(c->mode, sizeof c->mode, "%s", json_string_value(crash));
    json_t *on = json_object_get(data, "on");
    snprintf(c->on, sizeof c->on, "%s", json_is_string(on) ? json_string_value(on) : hook);
    json_t *v;
    c->ms = json_is_integer(v = json_object_get(data, "ms")) ? (long)json_integer_value(v) : 10000;
    c->bytes = json_is_integer(v = json_object_get(data, "bytes")) ? (long)json_integer_value(v) : 2L << 20;
    c->status = json_is_integer(v = json_object_get(data, "status")) ? (int)json_integer_value(v) : 3;
    snprintf(c->path, sizeof c->path, "%s", json_is_string(v = json_object_get(data, "path")) ? json_string_value(v) : "");
}

static int misbehave(crashy *c, greenroom_call *call) {
    if (strcmp(c->mode, "abort") == 0) abort();
    if (strcmp(c->mode, "null") == 0) {
        volatile int *p = NULL;
        *p = 1;
    }
    if (strcmp(c->mode, "exit") == 0) exit(c->status);
    if (strcmp(c->mode, "sleep") == 0) {
        struct timespec ts = {c->ms / 1000, (c->ms % 1000) * 1000000L};
        while (nanosleep(&ts, &ts) != 0) {}
        return 0;
    }
    if (strcmp(c->mode, "spin") == 0) {
        for (volatile unsigned long i = 0;; i++) {}
    }
    if (strcmp(c->mode, "oversize") == 0) {
        /* A JSON string of `bytes` bytes in all. */
        long n = c->bytes < 2 ? 2 : c->bytes;
        char *s = malloc((size_t)n);
        if (!s) return 0;
        memset(s, 'x', (size_t)n);
        s[0] = '"';
        s[n - 1] = '"';
        host_api->set_output(call, s, (size_t)n);
        free(s);
        return -2;  /* 0 below: output set, hook succeeds */
    }
    if (strcmp(c->mode, "wait") == 0) {
        c->mode[0] = 0;
        FILE *f = fopen(c->path, "r");
        if (!f) {
            host_api->set_error(call, "crashy: wait: cannot open \"path\" (a FIFO to read)");
            return 1;
        }
        char buf[64];
        while (fread(buf, 1, sizeof buf, f) > 0) {}
        fclose(f);
        return 0;
    }
    if (strcmp(c->mode, "fail") == 0) {
        host_api->set_error(call, "crashy: failing on request (crash: fail)");
        return 1;
    }
    return 0;
}

static int crashy_hook(void *instance, const char *hook, const char *input, size_t len, greenroom_call *call) {
    crashy *c = instance;
    c->calls++;
    json_t *in = json_loadb(input, len, 0, NULL);
    json_t *data = json_object_get(in, "data");
    if (json_is_object(data) && json_is_true(json_object_get(data, "next"))) {
        memset(&armed, 0, sizeof armed);
        read_data(&armed, data, hook);
        json_t *after = json_object_get(data, "after");
        armed_skip = json_is_integer(after) ? (long)json_integer_value(after) : 0;
    } else {
        read_data(c, data, hook);
    }
    json_decref(in);
    if (armed.mode[0] && strcmp(armed.on, hook) == 0) {
        if (armed_skip > 0) {
            armed_skip--;
        } else {
            crashy once = armed;
            armed.mode[0] = 0;
            int r = misbehave(&once, call);
            if (r == -2) return 0;
            if (r != 0) return r;
        }
    }
    if (c->mode[0] && strcmp(c->on, hook) == 0) {
        int r = misbehave(c, call);
        if (r == -2) return 0;
        if (r != 0) return r;
    }
    if (strcmp(hook, "configure") == 0) {
        char out[96];
        int n = snprintf(out, sizeof out, "{\"calls\":%lu,\"pid\":%ld}", c->calls, (long)getpid());
        host_api->set_output(call, out, (size_t)n);
    }
    return 0;
}

static void crashy_destroy(void *instance) { free(instance); }

GREENROOM_PLUGIN_EXPORT int greenroom_plugin_init(const greenroom_host_api *api, greenroom_host *host) {
    if (api->abi_version != GREENROOM_PLUGIN_ABI_VERSION) return 1;
    host_api = api;
    greenroom_class cls;
    memset(&cls, 0, sizeof cls);
    cls.abi_version = GREENROOM_PLUGIN_ABI_VERSION;
    cls.struct_size = sizeof cls;
    cls.name = "Crashy";
    cls.plugin_name = "crashy";
    cls.plugin_version = "1.0";
    cls.create = crashy_create;
    cls.hook = crashy_hook;
    cls.destroy = crashy_destroy;
    cls.instance_memory_bytes = sizeof(crashy);
    return api->register_class(host, &cls);
}

/*
 * Counter — a container class in plain C, written against greenroom_plugin.h only.
 *
 * Each instance counts the hooks it ran. `configure` returns
 *   {"calls": N, "lastHook": <the hook before this configure, or null>, "workPending": P,
 *    "workDone": D, "sum": <the last background result, or null>}
 * Data (from init or configure):
 *   "failOn": "<hook>"  makes that hook fail from then on (null clears it; naming "configure" fails
 *                       this very configure);
 *   "work": K           sums 1..K on the host's thread pool; the result shows in a later configure.
 */
#define _POSIX_C_SOURCE 200809L  /* strdup */
#include <greenroom_plugin.h>
#include <jansson.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

GREENROOM_PLUGIN_EXPORT_ABI_VERSION()

/* What the class remembers of the host: one per greenroom_plugin_init (one host per process in
   practice, but nothing here assumes it). */
typedef struct counter_class {
    const greenroom_host_api *api;
    greenroom_host *host;
} counter_class;

typedef struct counter {
    const counter_class *cls;
    char *container_id;
    uint64_t calls;
    char last_hook[32];
    char fail_on[32];        /* empty: no hook fails */
    unsigned pending_work;   /* queued sums whose done has not run */
    int destroyed;           /* destroy ran while work was pending: the last done frees */
    uint64_t work_done;
    uint64_t sum;
    int has_sum;
} counter;

typedef struct sum_job {
    counter *owner;
    uint64_t k;
    uint64_t sum;
} sum_job;

/* Sums are capped so the result fits a JSON integer (int64). */
#define COUNTER_MAX_WORK 4294967295ull

static void counter_free(counter *c) {
    free(c->container_id);
    free(c);
}

/* On a thread-pool thread: touches only the job. */
static void sum_work(void *ctx) {
    sum_job *job = ctx;
    uint64_t sum = 0;
    for (uint64_t i = 1; i <= job->k; i++) sum += i;
    job->sum = sum;
}

/* Back on the loop thread. */
static void sum_done(void *ctx, int status) {
    sum_job *job = ctx;
    counter *c = job->owner;
    c->pending_work--;
    if (status == 0) {
        c->sum = job->sum;
        c->has_sum = 1;
        c->work_done++;
    }
    free(job);
    if (c->destroyed && c->pending_work == 0) counter_free(c);
}

static void *counter_create(void *class_ctx, const char *container_id, greenroom_call *call) {
    const counter_class *cls = class_ctx;
    counter *c = calloc(1, sizeof *c);
    if (c) c->container_id = strdup(container_id ? container_id : "");
    if (!c || !c->container_id) {
        free(c);
        cls->api->set_error(call, "Counter: out of memory");
        return NULL;
    }
    c->cls = cls;
    return c;
}

static int fail(counter *c, greenroom_call *call, const char *format, const char *detail) {
    char message[256];
    snprintf(message, sizeof message, format, detail);
    c->cls->api->set_error(call, message);
    return 1;
}

/* Queues a sum when data.work asks for one. */
static int counter_queue_work(counter *c, json_t *work, greenroom_call *call) {
    if (!json_is_integer(work) || json_integer_value(work) < 0 ||
        (uint64_t)json_integer_value(work) > COUNTER_MAX_WORK) {
        return fail(c, call, "Counter: data.work must be an integer from 0 to 4294967295%s", "");
    }
    sum_job *job = calloc(1, sizeof *job);
    if (!job) return fail(c, call, "Counter: out of memory%s", "");
    job->owner = c;
    job->k = (uint64_t)json_integer_value(work);
    /* Counted first: a host without a thread pool runs done before queue_work returns. */
    c->pending_work++;
    if (c->cls->api->queue_work(c->cls->host, sum_work, sum_done, job) != 0) {
        c->pending_work--;
        free(job);
        return fail(c, call, "Counter: the host refused background work%s", "");
    }
    return 0;
}

static int counter_configure(counter *c, const char *previous_hook, json_t *data, greenroom_call *call) {
    json_t *work = json_is_object(data) ? json_object_get(data, "work") : NULL;
    if (work && counter_queue_work(c, work, call) != 0) return 1;
    json_t *out = json_pack("{s:I, s:o, s:I, s:I, s:o}",
                            "calls", (json_int_t)c->calls,
                            "lastHook", previous_hook[0] ? json_string(previous_hook) : json_null(),
                            "workPending", (json_int_t)c->pending_work,
                            "workDone", (json_int_t)c->work_done,
                            "sum", c->has_sum ? json_integer((json_int_t)c->sum) : json_null());
    char *text = out ? json_dumps(out, JSON_COMPACT) : NULL;
    json_decref(out);
    if (!text) return fail(c, call, "Counter: cannot encode the output%s", "");
    c->cls->api->set_output(call, text, strlen(text));  /* copied by the host */
    free(text);
    return 0;
}

static int counter_hook(void *instance, const char *hook, const char *input, size_t input_len,
                        greenroom_call *call) {
    counter *c = instance;
    char previous[sizeof c->last_hook];
    memcpy(previous, c->last_hook, sizeof previous);
    c->calls++;
    snprintf(c->last_hook, sizeof c->last_hook, "%s", hook);

    json_error_t error;
    json_t *in = json_loadb(input, input_len, 0, &error);
    if (!in) return fail(c, call, "Counter: the input is not JSON: %s", error.text);
    json_t *data = json_object_get(in, "data");
    if (json_is_object(data)) {
        json_t *fail_on = json_object_get(data, "failOn");
        if (json_is_string(fail_on)) snprintf(c->fail_on, sizeof c->fail_on, "%s", json_string_value(fail_on));
        else if (json_is_null(fail_on)) c->fail_on[0] = '\0';
    }
    int rc = 0;
    if (c->fail_on[0] && strcmp(c->fail_on, hook) == 0) {
        char message[160];
        snprintf(message, sizeof message, "Counter: %s failed because data.failOn names it (call %" PRIu64 ")",
                 hook, c->calls);
        c->cls->api->set_error(call, message);
        rc = 1;
    } else if (strcmp(hook, "configure") == 0) {
        rc = counter_configure(c, previous, data, call);
    }
    json_decref(in);  /* no Jansson value outlives the call (see greenroom_plugin.h) */
    return rc;
}

static size_t counter_memory_bytes(void *instance) {
    counter *c = instance;
    return sizeof *c + strlen(c->container_id) + 1 + c->pending_work * sizeof(sum_job);
}

static void counter_destroy(void *instance) {
    counter *c = instance;
    if (c->pending_work > 0) c->destroyed = 1;  /* the last sum_done frees it */
    else counter_free(c);
}

GREENROOM_PLUGIN_EXPORT int greenroom_plugin_init(const greenroom_host_api *api, greenroom_host *host) {
    if (api->abi_version != GREENROOM_PLUGIN_ABI_VERSION || !GREENROOM_HAS_FIELD(api, set_error)) return 1;
    counter_class *cls = calloc(1, sizeof *cls);  /* kept for good: classes are never unregistered */
    if (!cls) return 1;
    cls->api = api;
    cls->host = host;

    greenroom_class table;
    memset(&table, 0, sizeof table);
    table.abi_version = GREENROOM_PLUGIN_ABI_VERSION;
    table.struct_size = sizeof table;
    table.name = "Counter";
    table.plugin_name = "counter";
    table.plugin_version = "1.0.0";
    table.class_ctx = cls;
    table.create = counter_create;
    table.hook = counter_hook;
    table.memory_bytes = counter_memory_bytes;
    table.destroy = counter_destroy;
    return api->register_class(host, &table);
}

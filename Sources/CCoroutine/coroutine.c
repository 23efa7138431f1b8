#define _GNU_SOURCE
#include "greenroom_coroutine.h"

#include <stdlib.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

struct gr_coroutine {
    ucontext_t context;
    ucontext_t caller;
    void *mapping;
    size_t mapping_bytes;
    void (*entry)(void *);
    void *arg;
    int finished;
};

/* makecontext passes only ints: the coroutine being started is handed over here instead (one thread
   starts one coroutine at a time). */
static __thread gr_coroutine *starting;

static void trampoline(void) {
    gr_coroutine *co = starting;
    starting = NULL;
    co->entry(co->arg);
    co->finished = 1;
    /* Returning ends the context: uc_link goes back to the caller's. */
}

static void prepare(gr_coroutine *co) {
    getcontext(&co->context);
    long page = sysconf(_SC_PAGESIZE);
    co->context.uc_stack.ss_sp = (char *)co->mapping + page;
    co->context.uc_stack.ss_size = co->mapping_bytes - (size_t)page;
    co->context.uc_link = &co->caller;
    co->finished = 0;
    makecontext(&co->context, trampoline, 0);
}

gr_coroutine *gr_coroutine_create(size_t stack_bytes, void (*entry)(void *), void *arg) {
    long page = sysconf(_SC_PAGESIZE);
    size_t bytes = ((stack_bytes + (size_t)page - 1) / (size_t)page + 1) * (size_t)page;
    void *mapping = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
    if (mapping == MAP_FAILED) return NULL;
    /* The guard page: running off the stack's end faults instead of writing over other memory. */
    if (mprotect(mapping, (size_t)page, PROT_NONE) != 0) {
        munmap(mapping, bytes);
        return NULL;
    }
    gr_coroutine *co = calloc(1, sizeof *co);
    if (co == NULL) {
        munmap(mapping, bytes);
        return NULL;
    }
    co->mapping = mapping;
    co->mapping_bytes = bytes;
    co->entry = entry;
    co->arg = arg;
    prepare(co);
    return co;
}

int gr_coroutine_resume(gr_coroutine *co) {
    if (co->finished) return 1;
    starting = co;
    swapcontext(&co->caller, &co->context);
    return co->finished;
}

void gr_coroutine_yield(gr_coroutine *co) {
    swapcontext(&co->context, &co->caller);
}

void gr_coroutine_reset(gr_coroutine *co, void (*entry)(void *), void *arg) {
    co->entry = entry;
    co->arg = arg;
    prepare(co);
}

void gr_coroutine_destroy(gr_coroutine *co) {
    if (co == NULL) return;
    munmap(co->mapping, co->mapping_bytes);
    free(co);
}

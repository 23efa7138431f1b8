#ifndef GREENROOM_COROUTINE_H
#define GREENROOM_COROUTINE_H

#include <stddef.h>

/// A stackful coroutine on the calling thread: a call that must wait for another process parks here
/// (its stack kept) while the thread goes back to the event loop, and resumes where it stopped.
/// Nothing here makes a thread; one thread switches between its own stack and the coroutines'.
typedef struct gr_coroutine gr_coroutine;

/// Makes a coroutine that will run `entry(arg)` on a stack of `stack_bytes` (rounded up to pages, with
/// a guard page below it). NULL when the stack cannot be mapped.
gr_coroutine *gr_coroutine_create(size_t stack_bytes, void (*entry)(void *), void *arg);

/// Runs the coroutine from where it stopped (its start, the first time) until it yields or its entry
/// returns. Called from outside any coroutine. Returns 1 when the entry has returned, else 0.
int gr_coroutine_resume(gr_coroutine *co);

/// Goes back to whoever resumed the coroutine; returns when it is resumed again. Called from inside it.
void gr_coroutine_yield(gr_coroutine *co);

/// Starts the coroutine over with a new entry (its entry returned): its stack is reused.
void gr_coroutine_reset(gr_coroutine *co, void (*entry)(void *), void *arg);

/// Frees the coroutine and its stack (its entry must have returned, or it must never have started).
void gr_coroutine_destroy(gr_coroutine *co);

#endif

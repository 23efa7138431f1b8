#ifndef GREENROOM_CJANSSON_SHIM_H
#define GREENROOM_CJANSSON_SHIM_H
#include <jansson.h>

/* Jansson's reference counting and type tests are macros or static inlines; wrap them with
   prefixed names so Swift sees ordinary functions. */
static inline void gr_json_decref(json_t *j) { json_decref(j); }
static inline json_t *gr_json_incref(json_t *j) { return json_incref(j); }
static inline int gr_json_typeof(const json_t *j) { return (int)json_typeof(j); }
static inline size_t gr_json_flags_compact(void) { return JSON_COMPACT; }
static inline size_t gr_json_flags_dump(void) { return JSON_COMPACT | JSON_ENCODE_ANY; }
static inline size_t gr_json_flags_load(void) { return JSON_DECODE_ANY | JSON_ALLOW_NUL; }
#endif

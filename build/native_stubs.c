/* The numba run-time helpers that the compiled kernels name only on paths they never take:
   raising an exception (the kernels are compiled with error_model="numpy" and raise none) and
   freeing arrays they allocated (they allocate none; every array comes from the caller).
   Reaching one of these is a bug, so each stops the process instead of going on wrongly. */
#include <stdlib.h>

void NRT_Free(void *pointer) { free(pointer); }
void NRT_MemInfo_call_dtor(void *meminfo) { (void)meminfo; abort(); }
int numba_gil_ensure(void) { return 0; }
void numba_gil_release(void *state) { (void)state; }
void *numba_unpickle(const char *data, int size, const char *hash) {
    (void)data; (void)size; (void)hash; abort();
}
int numba_do_raise(void *exception) { (void)exception; abort(); }
void *numba_runtime_build_excinfo_struct(void *info, void *extra) {
    (void)info; (void)extra; abort();
}

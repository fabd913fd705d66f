/*
 * The guest side of the sandbox's JavaScript jobs: QuickJS without its
 * std and os modules (no files, no sockets, no environment, no timers).
 *
 * It reads the job from stdin as sandbox/bootstrap.py does: 8 bytes of
 * little-endian code length, the code (UTF-8), then the job's own stdin,
 * which readline() and readStdin() return. It runs the code as a global
 * script, then the promise jobs it queued. console.log, console.info,
 * console.debug, print and process.stdout.write write to stdout;
 * console.error, console.warn and process.stderr.write to stderr.
 * process.exit(n) exits with n & 0xff. An uncaught exception or an
 * unhandled promise rejection prints the error and its stack to stderr
 * and exits with 1. Math.random is seeded from WASI's random_get, so
 * every job draws its own numbers.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sched.h>

#include "quickjs.h"

/* Below the 1 MiB linked shadow stack (-z stack-size): QuickJS throws a
 * RangeError instead of running off it. */
#define MAX_STACK (768 << 10)
#define FIRST_READ (1 << 20)

static uint8_t *job_stdin;
static size_t job_stdin_len, job_stdin_pos;
static int stdin_eof;

static void die(const char *msg)
{
    fprintf(stderr, "sandbox: %s\n", msg);
    exit(70);
}

/* read_full reads n bytes (or up to EOF) into buf. */
static size_t read_full(uint8_t *buf, size_t n)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(0, buf + got, n - got);
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    return got;
}

/* fill_stdin reads more of the job's stdin; it returns 0 at EOF. */
static int fill_stdin(void)
{
    if (stdin_eof)
        return 0;
    uint8_t chunk[65536];
    ssize_t r = read(0, chunk, sizeof chunk);
    if (r <= 0) {
        stdin_eof = 1;
        return 0;
    }
    uint8_t *grown = realloc(job_stdin, job_stdin_len + (size_t)r);
    if (!grown)
        die("out of memory reading stdin");
    memcpy(grown + job_stdin_len, chunk, (size_t)r);
    job_stdin = grown;
    job_stdin_len += (size_t)r;
    return 1;
}

static JSValue js_readline(JSContext *ctx, JSValueConst this_val, int argc, JSValueConst *argv)
{
    for (;;) {
        uint8_t *start = job_stdin + job_stdin_pos;
        size_t left = job_stdin_len - job_stdin_pos;
        uint8_t *nl = left ? memchr(start, '\n', left) : NULL;
        if (nl) {
            job_stdin_pos += (size_t)(nl - start) + 1;
            return JS_NewStringLen(ctx, (const char *)start, (size_t)(nl - start));
        }
        if (!fill_stdin()) {
            if (left == 0)
                return JS_NULL;
            job_stdin_pos = job_stdin_len;
            return JS_NewStringLen(ctx, (const char *)start, left);
        }
    }
}

static JSValue js_read_stdin(JSContext *ctx, JSValueConst this_val, int argc, JSValueConst *argv)
{
    while (fill_stdin())
        ;
    JSValue s = JS_NewStringLen(ctx, (const char *)job_stdin + job_stdin_pos, job_stdin_len - job_stdin_pos);
    job_stdin_pos = job_stdin_len;
    return s;
}

/* write_args writes its arguments as strings, space separated, with a
 * newline when newline is set. */
static JSValue write_args(JSContext *ctx, FILE *f, int argc, JSValueConst *argv, int newline)
{
    for (int i = 0; i < argc; i++) {
        if (i > 0 && newline)
            fputc(' ', f);
        size_t len;
        const char *s = JS_ToCStringLen(ctx, &len, argv[i]);
        if (!s)
            return JS_EXCEPTION;
        fwrite(s, 1, len, f);
        JS_FreeCString(ctx, s);
    }
    if (newline)
        fputc('\n', f);
    return JS_UNDEFINED;
}

static JSValue js_log(JSContext *ctx, JSValueConst this_val, int argc, JSValueConst *argv)
{
    return write_args(ctx, stdout, argc, argv, 1);
}

static JSValue js_error(JSContext *ctx, JSValueConst this_val, int argc, JSValueConst *argv)
{
    fflush(stdout);
    JSValue r = write_args(ctx, stderr, argc, argv, 1);
    fflush(stderr);
    return r;
}

static JSValue js_stdout_write(JSContext *ctx, JSValueConst this_val, int argc, JSValueConst *argv)
{
    JSValue r = write_args(ctx, stdout, argc > 0 ? 1 : 0, argv, 0);
    return JS_IsException(r) ? r : JS_TRUE;
}

static JSValue js_stderr_write(JSContext *ctx, JSValueConst this_val, int argc, JSValueConst *argv)
{
    fflush(stdout);
    JSValue r = write_args(ctx, stderr, argc > 0 ? 1 : 0, argv, 0);
    fflush(stderr);
    return JS_IsException(r) ? r : JS_TRUE;
}

static void finish(int code)
{
    fflush(stdout);
    fflush(stderr);
    _exit(code & 0xff);
}

static JSValue js_exit(JSContext *ctx, JSValueConst this_val, int argc, JSValueConst *argv)
{
    int32_t code = 0;
    if (argc > 0 && !JS_IsUndefined(argv[0]) && JS_ToInt32(ctx, &code, argv[0]))
        return JS_EXCEPTION;
    finish(code);
    return JS_UNDEFINED;
}

/* Math.random: xorshift128+ seeded from WASI's random_get. */
static uint64_t rng[2];

static JSValue js_random(JSContext *ctx, JSValueConst this_val, int argc, JSValueConst *argv)
{
    uint64_t s1 = rng[0], s0 = rng[1];
    rng[0] = s0;
    s1 ^= s1 << 23;
    rng[1] = s1 ^ s0 ^ (s1 >> 17) ^ (s0 >> 26);
    uint64_t v = (rng[1] + s0) >> 11;
    return JS_NewFloat64(ctx, (double)v / 9007199254740992.0);
}

static void print_exception(JSContext *ctx, JSValueConst exc)
{
    fflush(stdout);
    const char *s = JS_ToCString(ctx, exc);
    fprintf(stderr, "Uncaught %s\n", s ? s : "exception");
    JS_FreeCString(ctx, s);
    if (JS_IsError(ctx, exc)) {
        JSValue stack = JS_GetPropertyStr(ctx, exc, "stack");
        if (!JS_IsUndefined(stack)) {
            const char *st = JS_ToCString(ctx, stack);
            if (st)
                fputs(st, stderr);
            JS_FreeCString(ctx, st);
        }
        JS_FreeValue(ctx, stack);
    }
    fflush(stderr);
}

/* Rejected promises without a handler yet; a handler attached later
 * (promise.catch after the rejection) takes one off. What is left once
 * the job queue is empty is reported. */
struct rejection {
    JSValue promise, reason;
    struct rejection *next;
};
static struct rejection *rejections;

static void rejection_tracker(JSContext *ctx, JSValueConst promise, JSValueConst reason, JS_BOOL is_handled, void *opaque)
{
    if (!is_handled) {
        struct rejection *r = malloc(sizeof *r);
        if (!r)
            die("out of memory");
        r->promise = JS_DupValue(ctx, promise);
        r->reason = JS_DupValue(ctx, reason);
        r->next = rejections;
        rejections = r;
        return;
    }
    for (struct rejection **p = &rejections; *p; p = &(*p)->next) {
        if (JS_VALUE_GET_PTR((*p)->promise) == JS_VALUE_GET_PTR(promise)) {
            struct rejection *r = *p;
            *p = r->next;
            JS_FreeValue(ctx, r->promise);
            JS_FreeValue(ctx, r->reason);
            free(r);
            return;
        }
    }
}

static void set_func(JSContext *ctx, JSValueConst obj, const char *name, JSCFunction *fn, int len)
{
    JS_SetPropertyStr(ctx, obj, name, JS_NewCFunction(ctx, fn, name, len));
}

int main(int argc, char **argv)
{
    /* The countdown the host adds at loop heads calls sched_yield; a
     * call here makes sure the module imports it. */
    sched_yield();

    /* Waits for the job; a snapshot would save the stack here. */
    uint8_t *head = malloc(FIRST_READ);
    if (!head)
        die("out of memory");
    size_t got = read_full(head, 8);
    if (got < 8)
        finish(70); /* the host went away before sending a job */
    uint64_t n = 0;
    for (int i = 7; i >= 0; i--)
        n = (n << 8) | head[i];
    if (n > (64u << 20))
        die("code too large");
    char *code = malloc((size_t)n + 1);
    if (!code)
        die("out of memory");
    if (read_full((uint8_t *)code, (size_t)n) != n)
        die("short job");
    code[n] = 0;
    free(head);

    if (getentropy(rng, sizeof rng) != 0)
        die("no entropy");
    rng[0] |= 1;

    JSRuntime *rt = JS_NewRuntime();
    if (!rt)
        die("cannot start QuickJS");
    JS_SetMaxStackSize(rt, MAX_STACK);
    JS_SetHostPromiseRejectionTracker(rt, rejection_tracker, NULL);
    JSContext *ctx = JS_NewContext(rt);
    if (!ctx)
        die("cannot start QuickJS");

    JSValue global = JS_GetGlobalObject(ctx);
    JSValue console = JS_NewObject(ctx);
    set_func(ctx, console, "log", js_log, 1);
    set_func(ctx, console, "info", js_log, 1);
    set_func(ctx, console, "debug", js_log, 1);
    set_func(ctx, console, "error", js_error, 1);
    set_func(ctx, console, "warn", js_error, 1);
    JS_SetPropertyStr(ctx, global, "console", console);
    set_func(ctx, global, "print", js_log, 1);
    set_func(ctx, global, "readline", js_readline, 0);
    set_func(ctx, global, "readStdin", js_read_stdin, 0);
    JSValue process = JS_NewObject(ctx);
    set_func(ctx, process, "exit", js_exit, 1);
    JSValue out = JS_NewObject(ctx);
    set_func(ctx, out, "write", js_stdout_write, 1);
    JS_SetPropertyStr(ctx, process, "stdout", out);
    JSValue err = JS_NewObject(ctx);
    set_func(ctx, err, "write", js_stderr_write, 1);
    JS_SetPropertyStr(ctx, process, "stderr", err);
    JS_SetPropertyStr(ctx, global, "process", process);
    JSValue math = JS_GetPropertyStr(ctx, global, "Math");
    set_func(ctx, math, "random", js_random, 0);
    JS_FreeValue(ctx, math);
    JS_FreeValue(ctx, global);

    int rc = 0;
    JSValue v = JS_Eval(ctx, code, (size_t)n, "<job>", JS_EVAL_TYPE_GLOBAL);
    if (JS_IsException(v)) {
        JSValue exc = JS_GetException(ctx);
        print_exception(ctx, exc);
        JS_FreeValue(ctx, exc);
        rc = 1;
    }
    JS_FreeValue(ctx, v);
    while (rc == 0) {
        JSContext *jctx;
        int r = JS_ExecutePendingJob(rt, &jctx);
        if (r == 0)
            break;
        if (r < 0) {
            JSValue exc = JS_GetException(jctx);
            print_exception(jctx, exc);
            JS_FreeValue(jctx, exc);
            rc = 1;
        }
    }
    if (rc == 0 && rejections) {
        struct rejection *last = rejections;
        while (last->next)
            last = last->next; /* the first rejection */
        print_exception(ctx, last->reason);
        rc = 1;
    }
    /* Like the Python bootstrap: no teardown, nobody needs it. */
    finish(rc);
    return rc;
}

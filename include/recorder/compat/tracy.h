/*
 * recorder/tracy.h -- Tracy's instrumentation macros, on the recorder.
 *
 * Code instrumented for Tracy (ZoneScoped, FrameMark, TracyPlot, ...; in C,
 * TracyCZoneN / TracyCZoneEnd) records into the process's segment instead,
 * unchanged, where recorder-top, recorder-web and `recorder dump` see it.
 * Include this header where the code included <tracy/Tracy.hpp> or
 * <tracy/TracyC.h>, or put include/recorder/compat on the include path so
 * that those very includes find it (docs/compat.md).  One file of the
 * program defines RECORDER_IMPLEMENTATION, as with recorder.h.
 *
 * How Tracy's concepts map (the details and the gaps are in docs/compat.md):
 *   zone                       a scope (begin/end) named after the zone or
 *                              the enclosing function
 *   ZoneName / ZoneNameF       a nested scope with the run-time name, inside
 *                              the zone, until the zone ends
 *   ZoneText / ZoneValue       an instant "zone_text" / "zone_value" inside
 *                              the zone, the text (cut to 45 bytes) as message
 *   FrameMark                  an instant "frame"; FrameMarkNamed(n): "n"
 *   FrameMarkStart/End(n)      a scope "n" on the calling thread
 *   TracyPlot(name, v)         a counter
 *   TracyMessageL(literal)     an instant named by the literal
 *   TracyMessage(txt, size)    an instant "message", the text as message
 *   tracy::SetThreadName(n)    the thread's name
 *   colors, call-stack depths  ignored
 *   memory, locks, fibers,
 *   parameters, frame images   accepted and ignored (no-ops)
 *
 * TRACY_ENABLE is not needed and not looked at: RECORDER_DISABLE (or
 * RECORDER=0 at run time) turns recording off.
 */
#ifndef RECORDER_TRACY_H
#define RECORDER_TRACY_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "../../recorder.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the layer under the macros ------------------------------------------ */

#define REC_TRACY_TEXT_MAX 1024   /* run-time zone names are cut to this, NUL included */

#if defined(RECORDER_DISABLE)

static inline uint32_t rec__tz_begin_site(uint32_t *site, const char *name) {
    (void)site;
    (void)name;
    return 0;
}
static inline uint32_t rec__tz_begin_text(const char *txt, size_t size) {
    (void)txt;
    (void)size;
    return 0;
}
static inline void rec__tz_end(uint32_t id) { (void)id; }
static inline void rec__tz_end_text(const char *txt) { (void)txt; }
static inline void rec__tz_instant(const char *name, const char *txt, size_t size) {
    (void)name;
    (void)txt;
    (void)size;
}
static inline void rec__tz_plot(const char *name, double v) {
    (void)name;
    (void)v;
}
static inline void rec__tz_thread_name(const char *name) { (void)name; }
static inline int rec__tz_on(void) { return 0; }

#else

/* A scope with a static name, its id cached at the call site. */
static inline uint32_t rec__tz_begin_site(uint32_t *site, const char *name) {
    return rec__begin_site(site, name);
}

/* strnlen, which strict -std=c11 does not declare. */
static inline size_t rec__tz_len(const char *s, size_t max) {
    size_t n = 0;
    while (n < max && s[n]) n++;
    return n;
}

/* The id of txt[0..size) (size may be SIZE_MAX for a C string).  Not
 * inlined, so that GCC's -Warray-bounds does not misread the bounded copy
 * in callers that pass small arrays. */
static __attribute__((noinline, unused)) uint32_t rec__tz_id(const char *txt, size_t size) {
    char buf[REC_TRACY_TEXT_MAX];
    if (!txt) return 0;
    size_t n = rec__tz_len(txt, size < REC_TRACY_TEXT_MAX - 1 ? size : REC_TRACY_TEXT_MAX - 1);
    memcpy(buf, txt, n);
    buf[n] = 0;
    return rec__intern_dyn(buf);
}

/* A scope with a run-time name; returns its id (0: not recorded). */
static inline uint32_t rec__tz_begin_text(const char *txt, size_t size) {
    uint32_t id = rec__tz_id(txt, size);
    if (id) rec_begin_id(id);
    return id;
}

static inline void rec__tz_end(uint32_t id) {
    if (id) rec_end_id(id);
}

static inline void rec__tz_end_text(const char *txt) {
    rec__tz_end(rec__tz_id(txt, (size_t)-1));
}

/* An instant named name (a run-time string) carrying txt[0..size) as its
 * message (cut to REC_MSG_MAX bytes). */
static __attribute__((noinline, unused)) void rec__tz_instant(const char *name, const char *txt, size_t size) {
    char msg[REC_MSG_MAX + 1];
    size_t n = 0;
    if (txt) n = rec__tz_len(txt, size < REC_MSG_MAX ? size : REC_MSG_MAX);
    if (n) memcpy(msg, txt, n);
    msg[n] = 0;
    rec__instant(rec__tz_id(name, (size_t)-1), msg);
}

static inline void rec__tz_plot(const char *name, double v) {
    rec__counter(rec__tz_id(name, (size_t)-1), v);
}

static inline void rec__tz_thread_name(const char *name) { REC_THREAD_NAME(name); }

static inline int rec__tz_on(void) { return rec_init() == 0; }

#endif /* RECORDER_DISABLE */

/* ---- the C API (TracyC.h) ------------------------------------------------ */

/* A C zone: its scope's id and the id of the nested scope TracyCZoneName
 * opened, if any. */
struct rec_tracy_c_zone {
    uint32_t id;
    int32_t active;
    uint32_t name_id;
};
typedef struct rec_tracy_c_zone TracyCZoneCtx;

static inline TracyCZoneCtx rec__tz_c_begin(uint32_t *site, const char *name, int active) {
    TracyCZoneCtx c;
    c.id = active ? rec__tz_begin_site(site, name) : 0;
    c.active = c.id != 0;
    c.name_id = 0;
    return c;
}

static inline void rec__tz_c_end(TracyCZoneCtx c) {
    rec__tz_end(c.name_id);
    rec__tz_end(c.id);
}

static inline void rec__tz_c_name(TracyCZoneCtx *c, const char *txt, size_t size) {
    if (!c->id) return;
    rec__tz_end(c->name_id);
    c->name_id = rec__tz_begin_text(txt, size);
}

static inline void rec__tz_c_text(TracyCZoneCtx c, const char *txt, size_t size) {
    if (c.id) rec__tz_instant("zone_text", txt, size);
}

static inline void rec__tz_c_value(TracyCZoneCtx c, uint64_t value) {
    if (!c.id) return;
    char msg[24];
    int n = snprintf(msg, sizeof msg, "%llu", (unsigned long long)value);
    rec__tz_instant("zone_value", msg, (size_t)n);
}

static inline void rec__tz_frame(const char *name) {
    rec__tz_instant(name ? name : "frame", NULL, 0);
}

static inline void rec__tz_message(const char *txt, size_t size) {
    rec__tz_instant("message", txt, size);
}

#define REC__TZ_CAT2(a, b) a##b
#define REC__TZ_CAT(a, b) REC__TZ_CAT2(a, b)
#define REC__TZ_SITE(ctx) REC__TZ_CAT(ctx, _rec_tracy_site)

#define TracyCZone(ctx, active) \
    static uint32_t REC__TZ_SITE(ctx); \
    TracyCZoneCtx ctx = rec__tz_c_begin(&REC__TZ_SITE(ctx), __func__, (active))
#define TracyCZoneN(ctx, name, active) \
    static uint32_t REC__TZ_SITE(ctx); \
    TracyCZoneCtx ctx = rec__tz_c_begin(&REC__TZ_SITE(ctx), (name), (active))
#define TracyCZoneC(ctx, color, active) TracyCZone(ctx, active)
#define TracyCZoneNC(ctx, name, color, active) TracyCZoneN(ctx, name, active)
#define TracyCZoneS(ctx, depth, active) TracyCZone(ctx, active)
#define TracyCZoneNS(ctx, name, depth, active) TracyCZoneN(ctx, name, active)
#define TracyCZoneCS(ctx, color, depth, active) TracyCZone(ctx, active)
#define TracyCZoneNCS(ctx, name, color, depth, active) TracyCZoneN(ctx, name, active)
#define TracyCZoneEnd(ctx) rec__tz_c_end(ctx)
#define TracyCZoneText(ctx, txt, size) rec__tz_c_text((ctx), (txt), (size))
#define TracyCZoneName(ctx, txt, size) rec__tz_c_name(&(ctx), (txt), (size))
#define TracyCZoneColor(ctx, color) ((void)0)
#define TracyCZoneValue(ctx, value) rec__tz_c_value((ctx), (uint64_t)(value))

#define TracyCFrameMark rec__tz_frame(NULL);
#define TracyCFrameMarkNamed(name) rec__tz_frame(name);
#define TracyCFrameMarkStart(name) rec__tz_begin_text((name), (size_t)-1);
#define TracyCFrameMarkEnd(name) rec__tz_end_text(name);
#define TracyCFrameImage(image, width, height, offset, flip) ((void)0)

#define TracyCPlot(name, val) rec__tz_plot((name), (double)(val))
#define TracyCPlotF(name, val) rec__tz_plot((name), (double)(val))
#define TracyCPlotI(name, val) rec__tz_plot((name), (double)(val))
#define TracyCPlotConfig(name, type, step, fill, color) ((void)0)

#define TracyCMessage(txt, size) rec__tz_message((txt), (size))
#define TracyCMessageL(txt) REC_INSTANT(txt)
#define TracyCMessageC(txt, size, color) rec__tz_message((txt), (size))
#define TracyCMessageLC(txt, color) REC_INSTANT(txt)
#define TracyCMessageS(txt, size, depth) rec__tz_message((txt), (size))
#define TracyCMessageLS(txt, depth) REC_INSTANT(txt)
#define TracyCMessageCS(txt, size, color, depth) rec__tz_message((txt), (size))
#define TracyCMessageLCS(txt, color, depth) REC_INSTANT(txt)
#define TracyCAppInfo(txt, size) rec__tz_instant("app_info", (txt), (size))

#define TracyCAlloc(ptr, size) ((void)0)
#define TracyCFree(ptr) ((void)0)
#define TracyCSecureAlloc(ptr, size) ((void)0)
#define TracyCSecureFree(ptr) ((void)0)
#define TracyCAllocN(ptr, size, name) ((void)0)
#define TracyCFreeN(ptr, name) ((void)0)
#define TracyCSecureAllocN(ptr, size, name) ((void)0)
#define TracyCSecureFreeN(ptr, name) ((void)0)
#define TracyCAllocS(ptr, size, depth) ((void)0)
#define TracyCFreeS(ptr, depth) ((void)0)
#define TracyCSecureAllocS(ptr, size, depth) ((void)0)
#define TracyCSecureFreeS(ptr, depth) ((void)0)
#define TracyCAllocNS(ptr, size, depth, name) ((void)0)
#define TracyCFreeNS(ptr, depth, name) ((void)0)
#define TracyCSecureAllocNS(ptr, size, depth, name) ((void)0)
#define TracyCSecureFreeNS(ptr, depth, name) ((void)0)
#define TracyCMemoryDiscard(name) ((void)0)
#define TracyCSecureMemoryDiscard(name) ((void)0)

#define TracyCLockCtx(l) void *l __attribute__((unused))
#define TracyCLockAnnounce(lock) ((void)0)
#define TracyCLockTerminate(lock) ((void)0)
#define TracyCLockBeforeLock(lock) ((void)0)
#define TracyCLockAfterLock(lock) ((void)0)
#define TracyCLockAfterUnlock(lock) ((void)0)
#define TracyCLockAfterTryLock(lock, acquired) ((void)0)
#define TracyCLockMark(lock) ((void)0)
#define TracyCLockCustomName(lock, name, size) ((void)0)

#define TracyCSetThreadName(name) rec__tz_thread_name(name)
#define TracyCIsConnected rec__tz_on()
#define TracyCIsStarted rec__tz_on()
#define TracyCFiberEnter(fiber) ((void)0)
#define TracyCFiberLeave ((void)0)

#ifdef __cplusplus
} /* extern "C" */

/* ---- the C++ API (Tracy.hpp) --------------------------------------------- */

namespace rec_tracy {

/* A zone: a scope that ends with the C++ block.  Name() opens a nested
 * scope with a run-time name, closed before the zone's own end. */
class Zone {
  public:
    Zone(uint32_t *site, const char *name, bool active)
        : id_(active ? rec__tz_begin_site(site, name) : 0), name_id_(0) {}
    Zone(const char *name, size_t size, bool active)  /* ZoneTransient: a run-time name */
        : id_(active ? rec__tz_begin_text(name, size) : 0), name_id_(0) {}
    ~Zone() {
        rec__tz_end(name_id_);
        rec__tz_end(id_);
    }
    Zone(const Zone &) = delete;
    Zone &operator=(const Zone &) = delete;

    void Name(const char *txt, size_t size) {
        if (!id_) return;
        rec__tz_end(name_id_);
        name_id_ = rec__tz_begin_text(txt, size);
    }
    [[gnu::format(printf, 2, 3)]] void NameFmt(const char *fmt, ...) {
        if (!id_) return;
        char buf[REC_TRACY_TEXT_MAX];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(buf, sizeof buf, fmt, ap);
        va_end(ap);
        Name(buf, sizeof buf);
    }
    void Text(const char *txt, size_t size) const {
        if (id_) rec__tz_instant("zone_text", txt, size);
    }
    [[gnu::format(printf, 2, 3)]] void TextFmt(const char *fmt, ...) const {
        if (!id_) return;
        char buf[REC_MSG_MAX + 1];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(buf, sizeof buf, fmt, ap);
        va_end(ap);
        Text(buf, sizeof buf);
    }
    void Value(uint64_t value) const {
        TracyCZoneCtx c = {id_, id_ != 0, 0};
        rec__tz_c_value(c, value);
    }
    void Color(uint32_t) const {}
    bool IsActive() const { return id_ != 0; }

  private:
    uint32_t id_;
    uint32_t name_id_;
};

}  // namespace rec_tracy

namespace tracy {
inline void SetThreadName(const char *name) { rec__tz_thread_name(name); }
}  // namespace tracy

#ifndef TracyFunction
#define TracyFunction __func__
#endif
#ifndef TracyFile
#define TracyFile __FILE__
#endif
#ifndef TracyLine
#define TracyLine __LINE__
#endif

#define REC__TZ_ZONE rec_tracy_scoped_zone

#define ZoneNamed(varname, active) \
    static uint32_t REC__TZ_SITE(varname); \
    rec_tracy::Zone varname(&REC__TZ_SITE(varname), TracyFunction, (active))
#define ZoneNamedN(varname, name, active) \
    static uint32_t REC__TZ_SITE(varname); \
    rec_tracy::Zone varname(&REC__TZ_SITE(varname), (name), (active))
#define ZoneNamedC(varname, color, active) ZoneNamed(varname, active)
#define ZoneNamedNC(varname, name, color, active) ZoneNamedN(varname, name, active)
#define ZoneNamedS(varname, depth, active) ZoneNamed(varname, active)
#define ZoneNamedNS(varname, name, depth, active) ZoneNamedN(varname, name, active)
#define ZoneNamedCS(varname, color, depth, active) ZoneNamed(varname, active)
#define ZoneNamedNCS(varname, name, color, depth, active) ZoneNamedN(varname, name, active)

#define ZoneTransient(varname, active) rec_tracy::Zone varname(TracyFunction, (size_t)-1, (active))
#define ZoneTransientN(varname, name, active) rec_tracy::Zone varname((name), (size_t)-1, (active))
#define ZoneTransientNC(varname, name, color, active) ZoneTransientN(varname, name, active)
#define ZoneTransientS(varname, depth, active) ZoneTransient(varname, active)
#define ZoneTransientNS(varname, name, depth, active) ZoneTransientN(varname, name, active)

#define ZoneScoped ZoneNamed(REC__TZ_ZONE, true)
#define ZoneScopedN(name) ZoneNamedN(REC__TZ_ZONE, name, true)
#define ZoneScopedC(color) ZoneNamed(REC__TZ_ZONE, true)
#define ZoneScopedNC(name, color) ZoneNamedN(REC__TZ_ZONE, name, true)
#define ZoneScopedS(depth) ZoneNamed(REC__TZ_ZONE, true)
#define ZoneScopedNS(name, depth) ZoneNamedN(REC__TZ_ZONE, name, true)
#define ZoneScopedCS(color, depth) ZoneNamed(REC__TZ_ZONE, true)
#define ZoneScopedNCS(name, color, depth) ZoneNamedN(REC__TZ_ZONE, name, true)

#define ZoneText(txt, size) REC__TZ_ZONE.Text((txt), (size))
#define ZoneTextV(varname, txt, size) varname.Text((txt), (size))
#define ZoneTextF(fmt, ...) REC__TZ_ZONE.TextFmt(fmt, ##__VA_ARGS__)
#define ZoneTextVF(varname, fmt, ...) varname.TextFmt(fmt, ##__VA_ARGS__)
#define ZoneName(txt, size) REC__TZ_ZONE.Name((txt), (size))
#define ZoneNameV(varname, txt, size) varname.Name((txt), (size))
#define ZoneNameF(fmt, ...) REC__TZ_ZONE.NameFmt(fmt, ##__VA_ARGS__)
#define ZoneNameVF(varname, fmt, ...) varname.NameFmt(fmt, ##__VA_ARGS__)
#define ZoneColor(color) REC__TZ_ZONE.Color(color)
#define ZoneColorV(varname, color) varname.Color(color)
#define ZoneValue(value) REC__TZ_ZONE.Value((uint64_t)(value))
#define ZoneValueV(varname, value) varname.Value((uint64_t)(value))
#define ZoneIsActive REC__TZ_ZONE.IsActive()
#define ZoneIsActiveV(varname) varname.IsActive()

#define FrameMark rec__tz_frame(nullptr)
#define FrameMarkNamed(name) rec__tz_frame(name)
#define FrameMarkStart(name) rec__tz_begin_text((name), (size_t)-1)
#define FrameMarkEnd(name) rec__tz_end_text(name)
#define FrameImage(image, width, height, offset, flip) ((void)0)

#define TracyPlot(name, val) rec__tz_plot((name), (double)(val))
#define TracyPlotConfig(name, type, step, fill, color) ((void)0)

#define TracyMessage(txt, size) rec__tz_message((txt), (size))
#define TracyMessageL(txt) REC_INSTANT(txt)
#define TracyMessageC(txt, size, color) rec__tz_message((txt), (size))
#define TracyMessageLC(txt, color) REC_INSTANT(txt)
#define TracyMessageS(txt, size, depth) rec__tz_message((txt), (size))
#define TracyMessageLS(txt, depth) REC_INSTANT(txt)
#define TracyMessageCS(txt, size, color, depth) rec__tz_message((txt), (size))
#define TracyMessageLCS(txt, color, depth) REC_INSTANT(txt)
#define TracyAppInfo(txt, size) rec__tz_instant("app_info", (txt), (size))

#define TracyAlloc(ptr, size) ((void)0)
#define TracyFree(ptr) ((void)0)
#define TracySecureAlloc(ptr, size) ((void)0)
#define TracySecureFree(ptr) ((void)0)
#define TracyAllocN(ptr, size, name) ((void)0)
#define TracyFreeN(ptr, name) ((void)0)
#define TracySecureAllocN(ptr, size, name) ((void)0)
#define TracySecureFreeN(ptr, name) ((void)0)
#define TracyAllocS(ptr, size, depth) ((void)0)
#define TracyFreeS(ptr, depth) ((void)0)
#define TracySecureAllocS(ptr, size, depth) ((void)0)
#define TracySecureFreeS(ptr, depth) ((void)0)
#define TracyAllocNS(ptr, size, depth, name) ((void)0)
#define TracyFreeNS(ptr, depth, name) ((void)0)
#define TracySecureAllocNS(ptr, size, depth, name) ((void)0)
#define TracySecureFreeNS(ptr, depth, name) ((void)0)
#define TracyMemoryDiscard(name) ((void)0)
#define TracySecureMemoryDiscard(name) ((void)0)

/* Locks are the plain types: nothing is recorded about contention. */
#define TracyLockable(type, varname) type varname
#define TracyLockableN(type, varname, desc) type varname
#define TracySharedLockable(type, varname) type varname
#define TracySharedLockableN(type, varname, desc) type varname
#define LockableBase(type) type
#define SharedLockableBase(type) type
#define LockMark(varname) ((void)0)
#define LockableName(varname, txt, size) ((void)0)

#define TracySetProgramName(name) ((void)0)
#define TracyFiberEnter(fiber) ((void)0)
#define TracyFiberEnterHint(fiber, groupHint) ((void)0)
#define TracyFiberLeave ((void)0)
#define TracyParameterRegister(cb, data) ((void)0)
#define TracyParameterSetup(idx, name, isBool, val) ((void)0)
#define TracySourceCallbackRegister(cb, data) ((void)0)
#define TracyIsConnected rec__tz_on()
#define TracyIsStarted rec__tz_on()
#define TracyNoop ((void)0)

#endif /* __cplusplus */

#endif /* RECORDER_TRACY_H */

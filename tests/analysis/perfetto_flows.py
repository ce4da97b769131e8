#!/usr/bin/env python3
"""perfetto_flows.py -- binds the flows of a trace-event JSON as Perfetto's
JSON importer does, independently of recorder's exporter, so that tests can
ask which slice each flow end is drawn to.

    perfetto_flows.py FILE    prints one line per flow arc:
                              "SRC_NAME@TS -> DST_NAME@TS (parents: P -> Q)"

As a module: bind(doc) -> (slices, arcs).  slices: dicts {name, cat, ts,
dur, tid, pid, parent (index or None)}, times in integer ns; arcs: (src,
dst) slice indices.

The model (Perfetto's trace processor, src/trace_processor/importers/json
and importers/common/{slice,flow}_tracker.cc), per thread track:
  * events are taken in timestamp order, file order on ties;
  * B, X and thread-scoped i events open a slice; before each, and before
    an E, completed slices whose end is at or before the event's time are
    popped off the stack (SliceTracker::MaybeCloseStack); an E closes the
    innermost open slice; an X or an i has its duration at once but stays
    on the stack until such a pop;
  * legacy flow events bind to the top of the stack as it stands, with no
    pop first (FlowTracker: GetTopmostSliceOnTrack): "s" starts the flow
    there, "t" steps through it, "f" with "bp":"e" ends it there (without
    it, at the next slice to begin on the track);
  * the slice-level form: a B or X carrying "bind_id" binds that very
    slice, just opened: "flow_out" starts (or continues) the flow,
    "flow_in" ends it, both step through it.
"""
import decimal
import json
import sys


def _ns(v):
    return int(decimal.Decimal(str(v)) * 1000)


def bind(doc):
    evs = [(i, e) for i, e in enumerate(doc["traceEvents"]) if isinstance(e, dict) and e.get("ph") != "M"]
    evs.sort(key=lambda ie: (_ns(ie[1].get("ts", 0)), ie[0]))
    slices, arcs = [], []
    stacks = {}               # (pid, tid) -> [slice index]
    open_flow = {}            # v1: (id, cat, name) -> slice; v2: ("bind", id) -> slice
    wait_next = {}            # (pid, tid) -> [flow keys ending at the next slice]

    def close_done(st, ts):
        while st and slices[st[-1]]["dur"] is not None and slices[st[-1]]["ts"] + slices[st[-1]]["dur"] <= ts:
            st.pop()

    def step(key, here, end):
        src = open_flow.get(key)
        if src is not None and here is not None:
            arcs.append((src, here))
        if end:
            open_flow.pop(key, None)
        elif here is not None:
            open_flow[key] = here

    for _, e in evs:
        ph, track, ts = e["ph"], (e.get("pid"), e.get("tid")), _ns(e.get("ts", 0))
        st = stacks.setdefault(track, [])
        if ph in "BXi" and not (ph == "i" and e.get("s", "t") != "t"):
            close_done(st, ts)
            dur = None if ph == "B" else (_ns(e["dur"]) if ph == "X" else 0)
            slices.append({"name": e.get("name"), "cat": e.get("cat"), "ts": ts, "dur": dur, "pid": track[0],
                           "tid": track[1], "parent": st[-1] if st else None})
            me = len(slices) - 1
            st.append(me)
            for key in wait_next.pop(track, []):
                step(key, me, True)
            if ph != "i" and "bind_id" in e:
                key = ("bind", e["bind_id"])
                fin, fout = e.get("flow_in") is True, e.get("flow_out") is True
                if fout and not fin:
                    open_flow[key] = me
                elif fin:
                    step(key, me, not fout)
        elif ph == "E":
            close_done(st, ts)
            if st and slices[st[-1]]["dur"] is None:
                s = slices[st.pop()]
                s["dur"] = ts - s["ts"]
        elif ph in "stf":
            key = (e.get("id"), e.get("cat"), e.get("name"))
            top = st[-1] if st else None
            if ph == "s":
                if top is not None:
                    open_flow[key] = top
            elif ph == "t":
                step(key, top, False)
            elif e.get("bp") == "e":
                step(key, top, True)
            else:
                wait_next.setdefault(track, []).append(key)
    return slices, arcs


def main():
    doc = json.load(open(sys.argv[1], encoding="utf-8"))
    slices, arcs = bind(doc)

    def label(k):
        s = slices[k]
        return f"{s['name']}@{s['ts']}"

    for a, b in arcs:
        pa, pb = slices[a]["parent"], slices[b]["parent"]
        print(f"{label(a)} -> {label(b)} (parents: {label(pa) if pa is not None else '-'} -> "
              f"{label(pb) if pb is not None else '-'})")


if __name__ == "__main__":
    main()

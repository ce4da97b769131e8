"""pftrace.py -- an independent decoder of recorder's Perfetto protobuf
traces, for the tests, and their comparison with the JSON export of the
same input.

Decoding is Debian's python3-protobuf, through perfetto_subset.proto: the
descriptors come from protoc (Debian's protobuf-compiler) at test time
(--descriptor_set_out, no generated code to keep in step), so the .proto
text is the one source of field numbers.  Then this module applies
Perfetto's rules itself: sequences and their incremental state (interned
names and categories, cleared by SEQ_INCREMENTAL_STATE_CLEARED), packet
defaults, sequence-scoped incremental clocks from a ClockSnapshot, track
descriptors.  Every breach of those rules, and every field outside the
subset (an unknown field), is an error.
"""
import collections
import os
import subprocess
import tempfile

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

HERE = os.path.dirname(os.path.abspath(__file__))
CLEARED = 1
MONOTONIC, BOOTTIME, REALTIME = 3, 6, 1
TYPES = {1: "B", 2: "E", 3: "i", 4: "C"}

_trace_cls = None


def trace_class():
    global _trace_cls
    if _trace_cls is None:
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "subset.desc")
            subprocess.run(["protoc", "--proto_path=" + HERE, "--descriptor_set_out=" + out, "perfetto_subset.proto"],
                           check=True)
            fds = descriptor_pb2.FileDescriptorSet.FromString(open(out, "rb").read())
        pool = descriptor_pool.DescriptorPool()
        for f in fds.file:
            pool.Add(f)
        desc = pool.FindMessageTypeByName("perfetto.protos.Trace")
        if hasattr(message_factory, "GetMessageClass"):
            _trace_cls = message_factory.GetMessageClass(desc)
        else:
            _trace_cls = message_factory.MessageFactory(pool).GetPrototype(desc)
    return _trace_cls


class DecodeError(Exception):
    pass


def _unknown(msg, where, errors):
    """Fields outside the subset, anywhere in msg."""
    try:
        u = msg.UnknownFields()
        if len(u):
            errors.append(f"{where}: unknown fields {[f.field_number for f in u]}")
    except (AttributeError, NotImplementedError):
        pass
    for fd, v in msg.ListFields():
        if fd.message_type is None:
            continue
        for sub in (v if fd.label == fd.LABEL_REPEATED else [v]):
            _unknown(sub, f"{where}.{fd.name}", errors)


def _args(te, names=None):
    out = {}
    for a in te.debug_annotations:
        key = a.name if a.HasField("name") else (names or {}).get(a.name_iid, f"iid{a.name_iid}")
        kind = a.WhichOneof("value")
        out[key] = getattr(a, kind) if kind else None
    return out


def decode(path, check_unknown=True):
    """The trace at path (or its bytes) as {"tracks": {uuid: {...}},
    "events": [...], "snapshot": {clock: ts}, "stats": {...},
    "thread_stats": [...], "machine": machine_id or None}; raises
    DecodeError with every rule broken."""
    data = path if isinstance(path, bytes) else open(path, "rb").read()
    trace = trace_class().FromString(data)
    errors = []
    if check_unknown:
        _unknown(trace, "trace", errors)
    seqs = {}
    tracks = {}
    events = []
    snapshot = {}
    stats, thread_stats = None, []
    machines = set()
    for n, p in enumerate(trace.packet):
        where = f"packet {n}"
        # trace processor attributes each packet by its own machine_id: a
        # file of one machine carries it on every packet, or on none.
        machines.add(p.machine_id if p.HasField("machine_id") else None)
        if len(machines) > 1:
            errors.append(f"{where}: machine {machines} differs from the packets' before it")
            machines = {p.machine_id if p.HasField("machine_id") else None}
        if not p.HasField("trusted_packet_sequence_id"):
            errors.append(f"{where}: no sequence")
            continue
        sid = p.trusted_packet_sequence_id
        st = seqs.get(sid)
        if p.sequence_flags & CLEARED:
            st = seqs[sid] = {"names": {}, "cats": {}, "da": {}, "clock": None, "track": None, "inc": {}}
        elif st is None:
            errors.append(f"{where}: sequence {sid} used before its incremental state was cleared")
            continue
        if p.HasField("interned_data"):
            for e in p.interned_data.event_names:
                if e.iid in st["names"]:
                    errors.append(f"{where}: name iid {e.iid} interned twice on sequence {sid}")
                st["names"][e.iid] = e.name
            for e in p.interned_data.event_categories:
                st["cats"][e.iid] = e.name
            for e in p.interned_data.debug_annotation_names:
                st["da"][e.iid] = e.name
        if p.HasField("trace_packet_defaults"):
            d = p.trace_packet_defaults
            if d.HasField("timestamp_clock_id"):
                st["clock"] = d.timestamp_clock_id
            if d.HasField("track_event_defaults"):
                st["track"] = d.track_event_defaults.track_uuid
        kind = p.WhichOneof("data")
        if kind == "clock_snapshot":
            for c in p.clock_snapshot.clocks:
                if c.clock_id >= 64:
                    if not c.is_incremental:
                        errors.append(f"{where}: sequence clock {c.clock_id} not incremental")
                    st["inc"][c.clock_id] = c.timestamp
                elif sid == 1:
                    snapshot[c.clock_id] = c.timestamp
        ts = None
        if p.HasField("timestamp"):
            clock = p.timestamp_clock_id if p.HasField("timestamp_clock_id") else st["clock"]
            if clock in st["inc"]:
                st["inc"][clock] += p.timestamp
                ts = st["inc"][clock]
            elif clock == MONOTONIC:
                ts = p.timestamp
            else:
                errors.append(f"{where}: timestamp in clock {clock}, which has no snapshot on sequence {sid}")
        if kind == "track_descriptor":
            t = p.track_descriptor
            if t.uuid in tracks:
                errors.append(f"{where}: track {t.uuid} described twice")
            info = {"uuid": t.uuid, "name": t.name, "parent": t.parent_uuid if t.HasField("parent_uuid") else None}
            if t.HasField("process"):
                info.update(kind="process", pid=t.process.pid, name=t.process.process_name)
            elif t.HasField("thread"):
                info.update(kind="thread", pid=t.thread.pid, tid=t.thread.tid, name=t.thread.thread_name)
            elif t.HasField("counter"):
                info.update(kind="counter")
                if info["parent"] not in tracks:
                    errors.append(f"{where}: counter track's parent {info['parent']} not described before it")
            elif t.name and info["parent"] in tracks and tracks[info["parent"]]["kind"] == "process":
                # a lane that is no thread (a GPU's stream or device): a named track of the process
                info.update(kind="lane", pid=tracks[info["parent"]]["pid"])
            else:
                errors.append(f"{where}: a track that is no process, thread, lane or counter")
            tracks[t.uuid] = info
        elif kind == "track_event":
            te = p.track_event
            if ts is None:
                errors.append(f"{where}: event without a timestamp")
                continue
            track = te.track_uuid if te.HasField("track_uuid") else st["track"]
            if track not in tracks:
                errors.append(f"{where}: event on track {track}, not described before")
                continue
            name = None
            if te.HasField("name_iid"):
                if te.name_iid not in st["names"]:
                    errors.append(f"{where}: name iid {te.name_iid} not interned on sequence {sid}")
                name = st["names"].get(te.name_iid)
            elif te.HasField("name"):
                name = te.name
            cats = []
            for c in te.category_iids:
                if c not in st["cats"]:
                    errors.append(f"{where}: category iid {c} not interned on sequence {sid}")
                cats.append(st["cats"].get(c, "?"))
            for a in te.debug_annotations:
                if a.HasField("name_iid") and a.name_iid not in st["da"]:
                    errors.append(f"{where}: annotation name iid {a.name_iid} not interned on sequence {sid}")
            ty = TYPES.get(te.type)
            if ty is None:
                errors.append(f"{where}: event type {te.type}")
                continue
            if ty not in "EC" and name is None:
                errors.append(f"{where}: {ty} event without a name")
            ev = {"seq": sid, "track": track, "thread": st["track"], "ph": ty, "ts": ts, "name": name,
                  "cat": ",".join(cats) or None, "args": _args(te, st["da"]), "flow": list(te.flow_ids),
                  "term": list(te.terminating_flow_ids)}
            if ty == "C":
                if tracks[track]["kind"] != "counter":
                    errors.append(f"{where}: counter value on a {tracks[track]['kind']} track")
                vk = te.WhichOneof("counter_value_field")
                if vk is None:
                    errors.append(f"{where}: counter event without a value")
                ev["value"] = float(getattr(te, vk)) if vk else None
                ev["name"] = tracks[track]["name"]
            if name == "recorder: statistics":
                stats = dict(ev["args"], ts=ts)
            elif name == "recorder: thread statistics":
                thread_stats.append(dict(ev["args"], ts=ts, track=track))
            else:
                events.append(ev)
    if errors:
        raise DecodeError("; ".join(errors[:20]) + (f" (+{len(errors) - 20} more)" if len(errors) > 20 else ""))
    machine = next(iter(machines)) if machines else None
    return {"tracks": tracks, "events": events, "snapshot": snapshot, "stats": stats, "thread_stats": thread_stats,
            "machine": machine}


def counts(doc):
    """What the trace holds, by the export's count names (flows: events
    carrying flow ids; instants: the others)."""
    c = collections.Counter()
    for e in doc["events"]:
        if e["ph"] == "B":
            c["slices"] += 1
        elif e["ph"] == "C":
            c["counters"] += 1
        elif e["ph"] == "i" and (e["flow"] or e["term"]):
            c["flows"] += 1
        elif e["ph"] == "i":
            c["instants"] += 1
    c["threads"] = sum(1 for t in doc["tracks"].values() if t["kind"] in ("thread", "lane"))   # as the JSON counts
    return {k: c[k] for k in ("slices", "instants", "counters", "flows", "threads")}


def per_thread(doc):
    """{tid: [event tuples in file order]}, times in ns since the trace's
    start (MONOTONIC of ts 0 = mono_ns0 + t0_ns, from the statistics),
    with the nesting checked: every E ends the innermost open slice, and
    nothing is left open.  Flows are apart: {tid: [(ts, kind, id)]}."""
    base = doc["stats"]["mono_ns0"] + doc["stats"]["t0_ns"]
    tid_of = {u: t["tid"] for u, t in doc["tracks"].items() if t["kind"] == "thread"}
    tid_of.update({u: t["name"] for u, t in doc["tracks"].items() if t["kind"] == "lane"})   # lanes: by name
    out, flows, stacks, errors = collections.defaultdict(list), collections.defaultdict(list), {}, []
    for e in doc["events"]:
        tid = tid_of.get(e["thread"])
        t = e["ts"] - base
        st = stacks.setdefault(e["thread"], [])   # a tid reused by a later thread is another track
        if e["ph"] == "B":
            st.append((e["name"], t))
            out[tid].append(("B", t, e["name"], e["cat"]))
        elif e["ph"] == "E":
            if not st:
                errors.append(f"tid {tid}: E at {t} with nothing open")
                continue
            name, b = st.pop()
            if t < b:
                errors.append(f"tid {tid}: {name} ends at {t} before it begins at {b}")
            out[tid].append(("E", t, name))
        elif e["flow"] or e["term"]:
            if not st:
                errors.append(f"tid {tid}: flow at {t} outside every slice")
            kind = "f" if e["term"] else "s/t"
            flows[tid].append((t, kind, (e["flow"] or e["term"])[0]))
        elif e["ph"] == "C":
            out[tid].append(("C", t, e["name"], e["value"]))
        else:
            out[tid].append(("i", t, e["name"], e["cat"], tuple(sorted(e["args"].items()))))
    for track, st in stacks.items():
        if st:
            errors.append(f"tid {tid_of.get(track)}: left open: {st}")
    return out, flows, errors


def json_per_thread(doc):
    """The same from a JSON export: times in ns (its microseconds with 3
    decimals), instants' args as the protobuf's annotations."""
    out, flows, stacks = collections.defaultdict(list), collections.defaultdict(list), {}
    for e in doc["traceEvents"]:
        ph = e["ph"]
        if ph == "M":
            continue
        tid, t = e["tid"], round(e["ts"] * 1000)
        st = stacks.setdefault(tid, [])
        if ph == "B":
            st.append(e["name"])
            out[tid].append(("B", t, e["name"], e.get("cat")))
        elif ph == "E":
            out[tid].append(("E", t, st.pop()))
        elif ph in "stf":
            flows[tid].append((t, "f" if ph == "f" else "s/t", e["id"]))
        elif ph == "X" and "bind_id" in e:   # the slice-level form: a "flow" slice of duration 0
            flows[tid].append((t, "s/t" if e.get("flow_out") else "f", e["bind_id"]))
        elif ph == "C":
            out[tid].append(("C", t, e["name"], float(e["args"]["value"])))
        else:
            out[tid].append(("i", t, e["name"], e.get("cat"), tuple(sorted(e.get("args", {}).items()))))
    return out, flows


def names(doc):
    """Slices by name (begins: zero-length slices are begin/end pairs too), as test_export_cases.py counts them."""
    out = collections.Counter()
    for e in doc["events"]:
        if e["ph"] == "B":
            out[e["name"]] += 1
    return out


def _same(a, b, tol):
    """Event tuples equal, times within tol: 0, or (ns, share of the time)
    for two reads of a segment, which convert ticks with a rate the reader
    refines in between."""
    if a == b:
        return True
    if not tol or len(a) != len(b) or a[0] != b[0] or a[2:] != b[2:]:
        return False
    return abs(a[1] - b[1]) <= tol[0] + tol[1] * max(abs(a[1]), abs(b[1]))


def compare(pf, js, exact=True, tol=0):
    """Differences between a decoded trace and the JSON of the same input
    (a list of strings, empty when they agree): counts, per thread every
    slice, instant and counter in order with its time, name, flags and
    arguments; the JSON's flows all there (the protobuf may also keep a
    step or end whose start the JSON could not place), the statistics."""
    diffs = []
    got, gflows, errs = per_thread(pf)
    diffs += errs
    want, wflows = json_per_thread(js)
    for tid in sorted(set(got) | set(want), key=str) if exact else []:
        a, b = got.get(tid, []), want.get(tid, [])
        if len(a) != len(b) or not all(_same(x, y, tol) for x, y in zip(a, b)):
            i = next((k for k in range(min(len(a), len(b))) if not _same(a[k], b[k], tol)), min(len(a), len(b)))
            diffs.append(f"tid {tid}: {len(a)} events vs {len(b)} in JSON; first difference at {i}: "
                         f"{a[i] if i < len(a) else None} vs {b[i] if i < len(b) else None}")
    for tid in wflows if exact and not tol else []:
        missing = collections.Counter(wflows[tid]) - collections.Counter(gflows.get(tid, []))
        if missing:
            diffs.append(f"tid {tid}: flows of the JSON missing: {sorted(missing)[:5]}")
    other = js["otherData"]["recorder"]
    s = pf["stats"]
    keys = ["entries_not_kept", "entries_overwritten", "entries_dropped", "entries_bad", "unmatched_ends",
            "nonfinite_counters", "pid", "real_ns0", "threads"] + ([] if tol else ["t0_ns"])
    for key in keys + (["too_deep_slices", "forced_slices", "late_flags"] if exact else []):
        jv = other["written"]["threads"] if key == "threads" else other[key]
        if s.get(key) != jv:
            diffs.append(f"statistics: {key} {s.get(key)} vs {jv} in JSON")
    jt = {(t["slot"], t["gen"]): t for t in other["threads"]}
    for t in pf["thread_stats"]:
        j = jt.get((t["slot"], t["gen"]))
        if j is None:
            diffs.append(f"thread statistics of slot {t['slot']} gen {t['gen']}: not in the JSON")
            continue
        for key in ("tid", "events", "not_kept", "overwritten", "dropped", "bad", "unmatched_ends", "too_deep", "name"):
            if t.get(key) != j[key]:
                diffs.append(f"thread {t['tid']}: {key} {t.get(key)} vs {j[key]} in JSON")
    if len(pf["thread_stats"]) != len(other["threads"]):
        diffs.append(f"{len(pf['thread_stats'])} thread statistics vs {len(other['threads'])} in JSON")
    return diffs


def decode_archive(path):
    """A `recorder gather` archive read as trace processor reads one
    (Perfetto's "Trace manifest format"): {"manifest": the JSON,
    "traces": {member: decode()}, "processes": {(machine name, pid):
    {"files", "uuids", "events"}}}.  A trace's machine is the manifest's
    name for the id its packets carry (files it does not name: None), so
    the same pid on two machines is two processes."""
    import json
    import tarfile
    with tarfile.open(path) as t:
        members = {m.name: t.extractfile(m).read() for m in t.getmembers() if m.isfile()}
    manifest = None
    for name, data in members.items():
        if data.lstrip().startswith(b'{"perfetto_manifest"'):
            if manifest is not None:
                raise DecodeError("two manifests")
            manifest = json.loads(data)["perfetto_manifest"]
    names = {}
    for f in (manifest or {}).get("files", []):
        for m in f.get("machines", []):
            names[(f["path"], m["id"])] = m["name"]
    traces, procs = {}, {}
    for name, data in members.items():
        if not name.endswith(".pftrace"):
            continue
        doc = traces[name] = decode(data)
        mid = doc["machine"]
        if mid is not None and (name, mid) not in names:
            raise DecodeError(f"{name}: machine id {mid} not declared in the manifest")
        machine = names.get((name, mid))
        for t in doc["tracks"].values():
            if t.get("kind") == "process":
                p = procs.setdefault((machine, t["pid"]), {"files": set(), "uuids": set(), "events": 0})
                p["files"].add(name)
        tracks = doc["tracks"]

        def pid_of(t):   # a counter track is its process's child
            return t["pid"] if "pid" in t else tracks.get(t.get("parent"), {}).get("pid")
        for t in tracks.values():
            procs[(machine, pid_of(t))]["uuids"].add(t["uuid"])
        for e in doc["events"]:
            procs[(machine, pid_of(tracks[e["track"]]))]["events"] += 1
    return {"manifest": manifest, "traces": traces, "processes": procs}

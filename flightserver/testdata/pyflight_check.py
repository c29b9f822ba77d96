#!/usr/bin/env python3
"""An independent client check of sstable-flight: pyarrow's Flight client
reads every table of one corpus mode and the rows must equal what real
Cassandra returned over CQL (each table's expected.json).

    pyflight_check.py --addr 127.0.0.1:8815 --corpus testdata/corpus/oa --mode oa

Nothing here shares code with the Go server: Arrow values are turned into
the corpus' canonical JSON (testdata/corpus/README.md) from pyarrow's own
arrays, and expected.json is read with its numbers kept as written.

Checks, per table: ListFlights lists it; GetFlightInfo(PATH) and DoGet of
every endpoint give the expected rows in order, and so does a CMD with
"splits": 4 (several endpoints unioned); a projection of two columns in
reverse order; a limit of 3; point reads by partition key (one key, IN,
a missing key, clustering slices) on many, clustered and all_types; and
the status codes of an unknown table, a bad command and a garbage ticket.
The first mismatch of each table is printed (table, check, row, column,
got, want); the exit status is 1 if anything failed.
"""

import argparse
import glob
import json
import math
import os
import struct
import sys

import pyarrow as pa
import pyarrow.flight as flight


# ---------------------------------------------------------------- expected


class Num(str):
    """A JSON number, kept as the literal text expected.json holds."""

    def is_int(self):
        return all(c in "-0123456789" for c in self)


def load_expected(corpus_dir):
    tables = {}
    for path in sorted(glob.glob(os.path.join(corpus_dir, "*", "*", "expected.json"))):
        with open(path, encoding="utf-8") as f:
            exp = json.load(f, parse_int=Num, parse_float=Num)
        tables[exp["table"]] = exp
    return tables


# ------------------------------------------------ Arrow → canonical JSON


class F32(float):
    """A float32 value (exact as a Python float)."""


class F64(float):
    """A float64 value."""


def civil(days):
    """(year, month, day) of a day count since 1970-01-01, proleptic
    Gregorian, any range (H. Hinnant's days_from_civil inverse)."""
    z = days + 719468
    era = z // 146097
    doe = z - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    d = doy - (153 * mp + 2) // 5 + 1
    m = mp + 3 if mp < 10 else mp - 9
    y = yoe + era * 400 + (1 if m <= 2 else 0)
    return y, m, d


def fmt_date(days):
    y, m, d = civil(days)
    sign = "-" if y < 0 else ""
    return "%s%04d-%02d-%02d" % (sign, abs(y), m, d)


def fmt_timestamp(ms):
    days, rem = divmod(ms, 86400000)
    secs, milli = divmod(rem, 1000)
    return "%sT%02d:%02d:%02d.%03dZ" % (fmt_date(days), secs // 3600, secs // 60 % 60, secs % 60, milli)


def fmt_float(v, cls):
    if math.isnan(v):
        return "NaN"
    if math.isinf(v):
        return "Infinity" if v > 0 else "-Infinity"
    return cls(v)


def fmt_uuid(b):
    h = b.hex()
    return "%s-%s-%s-%s-%s" % (h[:8], h[8:12], h[12:16], h[16:20], h[20:])


def is_tuple_struct(t):
    """Tuples are structs with fields "0", "1", ...; UDTs have names."""
    return [t.field(i).name for i in range(t.num_fields)] == [str(i) for i in range(t.num_fields)]


def canonical(arr):
    """The canonical JSON value of every slot of an Arrow array."""
    t = arr.type
    n = len(arr)
    if pa.types.is_null(t):
        return [None] * n
    valid = [not x for x in arr.is_null().to_pylist()]

    def each(vals, f):
        return [f(v) if ok else None for v, ok in zip(vals, valid)]

    if isinstance(t, pa.BaseExtensionType):
        if t.extension_name != "arrow.uuid":
            raise TypeError("unexpected extension type %s" % t)
        return each(arr.storage.to_pylist(), fmt_uuid)
    if pa.types.is_map(t):
        offs = arr.offsets.to_pylist()
        keys, items = canonical(arr.keys), canonical(arr.items)
        return [[[keys[j], items[j]] for j in range(offs[i], offs[i + 1])] if valid[i] else None for i in range(n)]
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        offs = arr.offsets.to_pylist()
        vals = canonical(arr.values)
        return [vals[offs[i]:offs[i + 1]] if valid[i] else None for i in range(n)]
    if pa.types.is_fixed_size_list(t):
        size = t.list_size
        vals = canonical(arr.values)
        base = arr.offset * size
        return [vals[base + i * size:base + (i + 1) * size] if valid[i] else None for i in range(n)]
    if pa.types.is_struct(t):
        kids = [canonical(arr.field(j)) for j in range(t.num_fields)]
        if is_tuple_struct(t):
            return [[k[i] for k in kids] if valid[i] else None for i in range(n)]
        names = [t.field(j).name for j in range(t.num_fields)]
        return [{name: k[i] for name, k in zip(names, kids)} if valid[i] else None for i in range(n)]
    if pa.types.is_boolean(t):
        return arr.to_pylist()
    if pa.types.is_integer(t):
        # bigint and counter are the only Int64 columns: decimal strings.
        if t.bit_width == 64:
            return each(arr.to_pylist(), str)
        return arr.to_pylist()
    if pa.types.is_float32(t):
        return each(arr.to_pylist(), lambda v: fmt_float(v, F32))
    if pa.types.is_float64(t):
        return each(arr.to_pylist(), lambda v: fmt_float(v, F64))
    if pa.types.is_string(t):
        return arr.to_pylist()  # text, ascii, inet, varint, decimal
    if pa.types.is_binary(t):
        return each(arr.to_pylist(), lambda b: "0x" + b.hex())
    if pa.types.is_date32(t):
        return each(arr.cast(pa.int32()).to_pylist(), fmt_date)
    if pa.types.is_time64(t):
        if t.unit != "ns":
            raise TypeError("time unit %s, want ns" % t.unit)
        return arr.cast(pa.int64()).to_pylist()
    if pa.types.is_timestamp(t):
        if t.unit != "ms" or t.tz != "UTC":
            raise TypeError("timestamp %s, want ms UTC" % t)
        return each(arr.cast(pa.int64()).to_pylist(), fmt_timestamp)
    if t == pa.month_day_nano_interval():
        return each(arr.to_pylist(), lambda v: {"months": v.months, "days": v.days, "nanos": v.nanoseconds})
    raise TypeError("no canonical form for Arrow type %s" % t)


def rows_of(batches):
    rows = []
    for b in batches:
        cols = [(b.schema.field(i).name, canonical(b.column(i))) for i in range(b.num_columns)]
        for i in range(b.num_rows):
            rows.append({name: vals[i] for name, vals in cols})
    return rows


# --------------------------------------------------------------- compare


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def same(got, want):
    if got is None or want is None:
        return got is None and want is None
    if isinstance(got, bool):
        return want is got
    if isinstance(got, float):
        if not isinstance(want, Num):
            return False
        w = float(want)
        if isinstance(got, F32):
            w = f32(w)
        return w == got and math.copysign(1, w) == math.copysign(1, got)
    if isinstance(got, int):
        return isinstance(want, Num) and want.is_int() and int(want) == got
    if isinstance(got, str):
        return type(want) is str and want == got
    if isinstance(got, list):
        return isinstance(want, list) and len(got) == len(want) and all(same(g, w) for g, w in zip(got, want))
    if isinstance(got, dict):
        return isinstance(want, dict) and got.keys() == want.keys() and all(same(got[k], want[k]) for k in got)
    return False


def show(v):
    if v is None:
        return "null"
    if isinstance(v, Num):
        return str(v)
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return repr(float(v)) + (" (float32)" if isinstance(v, F32) else "")
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, list):
        return "[" + ", ".join(show(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join("%s: %s" % (json.dumps(k), show(x)) for k, x in sorted(v.items())) + "}"
    return repr(v)


class Mismatch(Exception):
    pass


def compare_rows(got, want, columns):
    """Raises Mismatch at the first difference of two row lists."""
    for i in range(max(len(got), len(want))):
        if i >= len(got):
            raise Mismatch("row %d: missing (got %d rows, want %d); want %s" % (i, len(got), len(want), show(want[i])))
        if i >= len(want):
            raise Mismatch("row %d: extra (got %d rows, want %d); got %s" % (i, len(got), len(want), show(got[i])))
        for c in columns:
            g, w = got[i].get(c, "<absent>"), want[i].get(c, "<absent>")
            if not same(g, w):
                raise Mismatch("row %d, column %s: got %s, want %s\n    got row  %s\n    want row %s"
                               % (i, c, show(g), show(w), show(got[i]), show(want[i])))


# ------------------------------------------------------------------ check


class Checker:
    def __init__(self, client, mode, expected):
        self.client = client
        self.mode = mode
        self.expected = expected
        self.failures = []
        self.counts = {"tables": 0, "rows": 0, "values": 0, "reads": 0, "endpoints": 0}

    def fail(self, table, check, msg):
        self.failures.append("%s %s [%s]: %s" % (self.mode, table, check, msg))

    def cmd(self, exp, **kw):
        c = {"version": 1, "keyspace": exp["keyspace"], "table": exp["table"]}
        c.update(kw)
        return flight.FlightDescriptor.for_command(json.dumps(c).encode())

    def read(self, desc):
        """GetFlightInfo then DoGet of every endpoint, in order: (info,
        schema of the streams, rows, rows of each endpoint)."""
        info = self.client.get_flight_info(desc)
        self.counts["reads"] += 1
        per = []
        schema = None
        for ep in info.endpoints:
            self.counts["endpoints"] += 1
            reader = self.client.do_get(ep.ticket)
            table = reader.read_all()
            if schema is None:
                schema = table.schema
            elif not table.schema.equals(schema):
                raise Mismatch("endpoints have different schemas:\n%s\n%s" % (schema, table.schema))
            per.append(rows_of(table.to_batches()))
        if schema is not None and not schema.equals(info.schema):
            raise Mismatch("stream schema differs from GetFlightInfo's:\n%s\nvs\n%s" % (schema, info.schema))
        return info, info.schema, [r for rs in per for r in rs], per

    def check_schema(self, exp, schema, names):
        got = [f.name for f in schema]
        if got != names:
            raise Mismatch("schema fields %s, want %s" % (got, names))
        cols = {c["name"]: c for c in exp["columns"]}
        for f in schema:
            c = cols[f.name]
            md = {k.decode(): v.decode() for k, v in (f.metadata or {}).items()}
            want = {"cql.type": c["type"], "cql.kind": c["kind"]}
            if c["kind"] in ("partition_key", "clustering"):
                want["cql.position"] = str(c["position"])
            if c["kind"] == "clustering":
                want["cql.clustering_order"] = c["clustering_order"]
            if md != want:
                raise Mismatch("field %s metadata %s, want %s" % (f.name, md, want))

    def run_table(self, name):
        exp = self.expected[name]
        names = [c["name"] for c in exp["columns"]]
        want = [r["values"] for r in exp["rows"]]
        steps = [
            ("scan", lambda: self.scan(exp, names, want)),
            ("splits", lambda: self.splits(exp, names, want)),
            ("projection", lambda: self.projection(exp, names, want)),
            ("limit", lambda: self.limit(exp, names, want)),
        ]
        if name in ("many", "clustered", "all_types"):
            steps.append(("point", lambda: self.point(exp, names)))
        if name == "clustered":
            steps.append(("slice", lambda: self.slice(exp, names)))
        self.counts["tables"] += 1
        for check, f in steps:
            try:
                f()
            except Mismatch as e:
                self.fail(name, check, str(e))
                return  # the first mismatch per table
            except (pa.ArrowException, flight.FlightError, TypeError, ValueError, KeyError) as e:
                self.fail(name, check, "%s: %s" % (type(e).__name__, e))
                return

    def scan(self, exp, names, want):
        info, schema, got, _ = self.read(flight.FlightDescriptor.for_path(exp["keyspace"], exp["table"]))
        self.check_schema(exp, schema, names)
        gs = self.client.get_schema(flight.FlightDescriptor.for_path(exp["keyspace"], exp["table"])).schema
        if not gs.equals(schema):
            raise Mismatch("GetSchema differs from GetFlightInfo's schema")
        compare_rows(got, want, names)
        self.counts["rows"] += len(got)
        self.counts["values"] += len(got) * len(names)

    def splits(self, exp, names, want):
        info, schema, got, per = self.read(self.cmd(exp, splits=4))
        if len(info.endpoints) != 4:
            raise Mismatch("splits 4: %d endpoints" % len(info.endpoints))
        self.check_schema(exp, schema, names)
        compare_rows(got, want, names)

    def projection(self, exp, names, want):
        cols = [names[-1], names[0]]
        _, schema, got, _ = self.read(self.cmd(exp, columns=cols))
        self.check_schema(exp, schema, cols)
        compare_rows(got, [{c: w[c] for c in cols} for w in want], cols)

    def limit(self, exp, names, want):
        info, _, got, _ = self.read(self.cmd(exp, limit=3))
        if len(info.endpoints) != 1:
            raise Mismatch("limit without splits: %d endpoints, want 1" % len(info.endpoints))
        compare_rows(got, want[:3], names)

    def partitions(self, exp):
        """Expected rows grouped by partition, in token order: [(key
        values, rows)]."""
        pk = [c["name"] for c in exp["columns"] if c["kind"] == "partition_key"]
        out = []
        for r in exp["rows"]:
            key = tuple(r["values"][c] for c in pk)
            if out and out[-1][0] == key:
                out[-1][1].append(r["values"])
            else:
                out.append((key, [r["values"]]))
        return pk, out

    @staticmethod
    def literal(v):
        """A canonical key value as a command literal (docs/flight-api.md):
        the canonical forms of the key types are valid literals, numbers
        are JSON numbers."""
        if isinstance(v, Num):
            return int(v) if v.is_int() else float(v)
        return v

    def key_of(self, pk, key):
        return {c: self.literal(v) for c, v in zip(pk, key)}

    def point(self, exp, names):
        pk, parts = self.partitions(exp)
        picks = sorted({0, len(parts) // 2, len(parts) - 1})
        if exp["table"] == "clustered":  # also the static-only partition
            ck = [c["name"] for c in exp["columns"] if c["kind"] == "clustering"]
            picks += [i for i, (_, rows) in enumerate(parts) if rows[0][ck[0]] is None and i not in picks][:1]
        for i in picks:
            key, rows = parts[i]
            _, _, got, per = self.read(self.cmd(exp, keys=[self.key_of(pk, key)]))
            if len(per) != 1:
                raise Mismatch("key %s: %d endpoints, want 1" % (show(list(key)), len(per)))
            try:
                compare_rows(got, rows, names)
            except Mismatch as e:
                raise Mismatch("key %s: %s" % (show(list(key)), e))
        # IN: one stream for the whole list; each requested partition comes
        # whole and once (the server orders them by token).
        keys = [parts[i][0] for i in picks]
        _, _, got, per = self.read(self.cmd(exp, keys=[self.key_of(pk, k) for k in keys]))
        if len(per) != 1:
            raise Mismatch("IN of %d keys: %d endpoints, want 1" % (len(keys), len(per)))
        runs = []
        for r in got:
            key = tuple(r[c] for c in pk)
            if runs and key == runs[-1][0]:  # both from the stream: plain equality
                runs[-1][1].append(r)
            else:
                runs.append((key, [r]))
        if len(runs) != len(keys):
            raise Mismatch("IN of %d keys: %d partitions in the stream" % (len(keys), len(runs)))
        byk = dict(parts)
        seen = set()
        for key, rows in runs:
            match = [k for k in keys if all(same(g, w) for g, w in zip(key, k))]
            if not match or match[0] in seen:
                raise Mismatch("IN: endpoint of unrequested or repeated key %s" % show(list(key)))
            seen.add(match[0])
            try:
                compare_rows(rows, byk[match[0]], names)
            except Mismatch as e:
                raise Mismatch("IN key %s: %s" % (show(list(key)), e))
        # A key that no partition has: no row.
        if len(pk) == 1:
            present = {int(k[0]) for k, _ in parts}
            missing = max(present) + 1000003
            ktype = exp["columns"][0]["type"]
            lit = str(missing) if ktype == "bigint" else missing
            _, _, got, _ = self.read(self.cmd(exp, keys=[{pk[0]: lit}]))
            if got:
                raise Mismatch("absent key %s: %d rows, want 0" % (lit, len(got)))

    def slice(self, exp, names):
        """Clustering slices on the first clustering column of the widest
        partition; bounds are in clustering order."""
        pk, parts = self.partitions(exp)
        ck = [c["name"] for c in exp["columns"] if c["kind"] == "clustering"][0]
        key, rows = max(parts, key=lambda p: len({r[ck] for r in p[1]}))
        vals = []
        for r in rows:
            if r[ck] is not None and (not vals or vals[-1] != r[ck]):
                vals.append(r[ck])
        if len(vals) < 3:
            raise Mismatch("no partition with 3 clustering values to slice")
        cases = [
            ({"start": {"values": [self.literal(vals[0])], "inclusive": True},
              "end": {"values": [self.literal(vals[2])], "inclusive": False}}, set(vals[:2])),
            ({"start": {"values": [self.literal(vals[1])], "inclusive": False}}, set(vals[2:])),
            ({"end": {"values": [self.literal(vals[1])], "inclusive": True}}, set(vals[:2])),
        ]
        for sl, keep in cases:
            want = [r for r in rows if r[ck] in keep]
            _, _, got, _ = self.read(self.cmd(exp, keys=[self.key_of(pk, key)], clustering=sl))
            try:
                compare_rows(got, want, names)
            except Mismatch as e:
                raise Mismatch("key %s slice %s: %s" % (show(list(key)), json.dumps(sl), e))
        # A static-only partition has no row in a slice.
        for k, rs in parts:
            if rs[0][ck] is None:
                sl = {"start": {"values": [self.literal(vals[0])], "inclusive": True}}
                _, _, got, _ = self.read(self.cmd(exp, keys=[self.key_of(pk, k)], clustering=sl))
                if got:
                    raise Mismatch("static-only key %s with a slice: %d rows, want 0" % (show(list(k)), len(got)))
                break

    def list_flights(self):
        listed = {}
        for info in self.client.list_flights():
            path = [p.decode() for p in info.descriptor.path]
            listed[tuple(path)] = info
        for name, exp in sorted(self.expected.items()):
            info = listed.get((exp["keyspace"], name))
            if info is None:
                self.fail(name, "list", "not listed by ListFlights (listed: %s)" % sorted(listed))
            elif not info.endpoints:
                self.fail(name, "list", "listed without endpoints")

    def errors(self):
        def expect(check, f, exc, text):
            try:
                f()
            except exc as e:
                if text not in str(e):
                    self.fail("-", check, "%s without %r: %s" % (type(e).__name__, text, e))
                return
            except Exception as e:  # noqa: BLE001 - any other error is a failure
                self.fail("-", check, "raised %s, want %s: %s" % (type(e).__name__, exc.__name__, e))
                return
            self.fail("-", check, "no error, want %s" % exc.__name__)

        ks = next(iter(self.expected.values()))["keyspace"]
        # pyarrow maps gRPC NOT_FOUND to ArrowKeyError, INVALID_ARGUMENT to
        # ArrowInvalid, each naming the code in its message.
        expect("unknown table", lambda: self.client.get_flight_info(flight.FlightDescriptor.for_path(ks, "no_such_table")),
               pa.ArrowKeyError, "not found")
        expect("unknown keyspace", lambda: self.client.get_flight_info(flight.FlightDescriptor.for_path("no_such_ks", "t")),
               pa.ArrowKeyError, "not found")
        expect("garbage ticket", lambda: self.client.do_get(flight.Ticket(b"\x00garbage")).read_all(),
               pa.ArrowInvalid, "invalid argument")
        exp = next(iter(self.expected.values()))
        expect("unknown column", lambda: self.client.get_flight_info(self.cmd(exp, columns=["no_such_column"])),
               pa.ArrowInvalid, "invalid argument")
        expect("bad command", lambda: self.client.get_flight_info(flight.FlightDescriptor.for_command(b'{"version": 99}')),
               pa.ArrowInvalid, "invalid argument")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--addr", required=True, help="host:port of the Flight server")
    ap.add_argument("--corpus", required=True, help="a mode's corpus directory, e.g. testdata/corpus/oa")
    ap.add_argument("--mode", required=True, help="nb, oa or da (for messages)")
    args = ap.parse_args()

    expected = load_expected(args.corpus)
    if not expected:
        print("pyflight_check: no expected.json under %s" % args.corpus, file=sys.stderr)
        return 2
    client = flight.connect("grpc://" + args.addr)
    ch = Checker(client, args.mode, expected)
    ch.list_flights()
    for name in sorted(expected):
        ch.run_table(name)
    ch.errors()
    client.close()

    if ch.failures:
        for f in ch.failures:
            print("MISMATCH " + f)
        print("pyflight_check %s: FAIL, %d failures (pyarrow %s)" % (args.mode, len(ch.failures), pa.__version__))
        return 1
    c = ch.counts
    print("pyflight_check %s: OK, %d tables, %d rows and %d values equal expected.json; %d reads, %d endpoints (pyarrow %s)"
          % (args.mode, c["tables"], c["rows"], c["values"], c["reads"], c["endpoints"], pa.__version__))
    return 0


if __name__ == "__main__":
    sys.exit(main())

//go:build hdf5 && cgo

package hdf5

/*
#cgo pkg-config: hdf5-serial
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <hdf5.h>

// Every function below runs one whole operation inside one cgo call:
// HDF5's error stack and its automatic printing are per thread in a
// thread-safe build, and a goroutine may change threads between calls,
// so the printing is turned off, the stack cleared, the operation run
// and the stack walked on the same thread. The state below is shared by
// all calls; the Go side holds lib around each call and the reading of
// the state after it.

enum { TH5_ERRBUF = 8192, TH5_WHY = 256, TH5_MAXRANK = 32 };

typedef struct {
	char err[TH5_ERRBUF];   // the error records, fields \x1f, records \x1e
	int errlen;
	int notfound;           // a record's minor error is H5E_NOTFOUND
	int unsup;              // the type or dataspace has no nd equivalent
	char why[TH5_WHY];      // what is unsupported
	const char *step;       // the step that failed
	hsize_t start[TH5_MAXRANK], count[TH5_MAXRANK]; // th5_read's region
} th5_state_t;

static th5_state_t th5_st;

// th5_state gives Go the address of the state (cgo cannot link to a
// static variable).
static th5_state_t *th5_state(void) { return &th5_st; }

enum { TH5_INT = 1, TH5_UINT, TH5_FLOAT, TH5_COMPLEX, TH5_BOOL };

typedef struct {
	hid_t file, dset, mem;
	int rank;
	hsize_t dims[TH5_MAXRANK], chunk[TH5_MAXRANK];
	int layout;
	int kind;
	size_t size;
	int big;
	char filters[512];
} th5_info;

static herr_t th5_walk(unsigned n, const H5E_error2_t *e, void *cd) {
	char maj[160], min[160];
	int room, k;
	(void)n; (void)cd;
	maj[0] = min[0] = 0;
	H5Eget_msg(e->maj_num, NULL, maj, sizeof maj);
	H5Eget_msg(e->min_num, NULL, min, sizeof min);
	if (e->min_num == H5E_NOTFOUND) th5_st.notfound = 1;
	room = TH5_ERRBUF - th5_st.errlen;
	if (room <= 1) return 0;
	k = snprintf(th5_st.err + th5_st.errlen, (size_t)room, "%s\x1f%s\x1f%s\x1f%s\x1e",
		e->func_name ? e->func_name : "", maj, min, e->desc ? e->desc : "");
	if (k > 0) th5_st.errlen += k < room ? k : room - 1;
	return 0;
}

static void th5_begin(void) {
	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	H5Eclear2(H5E_DEFAULT);
	th5_st.errlen = 0;
	th5_st.err[0] = 0;
	th5_st.notfound = 0;
	th5_st.unsup = 0;
	th5_st.why[0] = 0;
	th5_st.step = "";
}

static void th5_fail(const char *step) {
	th5_st.step = step;
	H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, th5_walk, NULL);
	H5Eclear2(H5E_DEFAULT);
}

static void th5_unsupported(const char *step, const char *why) {
	th5_st.step = step;
	th5_st.unsup = 1;
	snprintf(th5_st.why, sizeof th5_st.why, "%s", why);
}

static hid_t th5_native_float(size_t size) {
	return size == 4 ? H5T_NATIVE_FLOAT : size == 8 ? H5T_NATIVE_DOUBLE : -1;
}

// th5_memtype sets in->kind, size, big and mem (the memory type HDF5
// converts to: the same numbers in the host's byte order) from the
// file type ft.
static int th5_memtype(hid_t ft, th5_info *in) {
	H5T_class_t cls = H5Tget_class(ft);
	size_t size = H5Tget_size(ft);
	char why[TH5_WHY];
	switch (cls) {
	case H5T_INTEGER: {
		H5T_sign_t sg = H5Tget_sign(ft);
		hid_t nat = -1;
		switch (size) {
		case 1: nat = sg == H5T_SGN_NONE ? H5T_NATIVE_UINT8 : H5T_NATIVE_INT8; break;
		case 2: nat = sg == H5T_SGN_NONE ? H5T_NATIVE_UINT16 : H5T_NATIVE_INT16; break;
		case 4: nat = sg == H5T_SGN_NONE ? H5T_NATIVE_UINT32 : H5T_NATIVE_INT32; break;
		case 8: nat = sg == H5T_SGN_NONE ? H5T_NATIVE_UINT64 : H5T_NATIVE_INT64; break;
		}
		if (nat < 0 || sg < 0) {
			snprintf(why, sizeof why, "integer type of %zu bytes", size);
			th5_unsupported("element type", why);
			return -1;
		}
		in->kind = sg == H5T_SGN_NONE ? TH5_UINT : TH5_INT;
		in->big = H5Tget_order(ft) == H5T_ORDER_BE;
		in->size = size;
		in->mem = H5Tcopy(nat);
		break;
	}
	case H5T_FLOAT: {
		hid_t nat = th5_native_float(size);
		if (nat < 0) {
			snprintf(why, sizeof why, "float type of %zu bytes", size);
			th5_unsupported("element type", why);
			return -1;
		}
		in->kind = TH5_FLOAT;
		in->big = H5Tget_order(ft) == H5T_ORDER_BE;
		in->size = size;
		in->mem = H5Tcopy(nat);
		break;
	}
	case H5T_COMPOUND: {
		// h5py's complex numbers: two floats of one size, packed.
		int nm = H5Tget_nmembers(ft);
		hid_t m0 = -1, m1 = -1;
		size_t fs = size / 2;
		int ok = nm == 2 && (fs == 4 || fs == 8) && size == 2 * fs;
		if (ok) {
			m0 = H5Tget_member_type(ft, 0);
			m1 = H5Tget_member_type(ft, 1);
			ok = m0 >= 0 && m1 >= 0 &&
				H5Tget_class(m0) == H5T_FLOAT && H5Tget_class(m1) == H5T_FLOAT &&
				H5Tget_size(m0) == fs && H5Tget_size(m1) == fs &&
				H5Tget_member_offset(ft, 0) == 0 && H5Tget_member_offset(ft, 1) == fs;
		}
		if (ok) {
			char *n0 = H5Tget_member_name(ft, 0), *n1 = H5Tget_member_name(ft, 1);
			hid_t nat = th5_native_float(fs);
			in->big = H5Tget_order(m0) == H5T_ORDER_BE;
			in->mem = H5Tcreate(H5T_COMPOUND, size);
			ok = n0 && n1 && in->mem >= 0 &&
				H5Tinsert(in->mem, n0, 0, nat) >= 0 && H5Tinsert(in->mem, n1, fs, nat) >= 0;
			if (n0) H5free_memory(n0);
			if (n1) H5free_memory(n1);
			in->kind = TH5_COMPLEX;
			in->size = size;
		}
		if (m0 >= 0) H5Tclose(m0);
		if (m1 >= 0) H5Tclose(m1);
		if (!ok) {
			th5_unsupported("element type", "compound type other than two packed floats of one size (h5py's complex)");
			return -1;
		}
		break;
	}
	case H5T_ENUM: {
		// h5py's bool: an enum of int8 with FALSE = 0 and TRUE = 1.
		int ok = H5Tget_nmembers(ft) == 2 && size == 1;
		for (unsigned i = 0; ok && i < 2; i++) {
			signed char v = -1;
			char *nm = H5Tget_member_name(ft, i);
			ok = nm && H5Tget_member_value(ft, i, &v) >= 0 &&
				((v == 0 && strcmp(nm, "FALSE") == 0) || (v == 1 && strcmp(nm, "TRUE") == 0));
			if (nm) H5free_memory(nm);
		}
		if (!ok) {
			th5_unsupported("element type", "enum type other than h5py's bool (FALSE = 0, TRUE = 1)");
			return -1;
		}
		in->kind = TH5_BOOL;
		in->size = 1;
		in->mem = H5Tcopy(ft);
		break;
	}
	default:
		snprintf(why, sizeof why, "type class %d (not a number)", (int)cls);
		th5_unsupported("element type", why);
		return -1;
	}
	if (in->mem < 0) {
		th5_fail("making the memory type");
		return -1;
	}
	return 0;
}

// th5_cache_bytes is the chunk cache of a dataset of chunks of cb bytes:
// four chunks (a task reading tiles of a chunk, with neighbours reading
// theirs between its reads), at least HDF5's default 1 MiB, at most
// 128 MiB; 0 to keep the default.
static size_t th5_cache_bytes(const th5_info *in) {
	double cb = (double)in->size;
	for (int i = 0; i < in->rank; i++) cb *= (double)in->chunk[i];
	if (4 * cb <= (double)(1 << 20) || cb > (double)(128 << 20)) return 0;
	return (size_t)(4 * cb);
}

static void th5_close_info(th5_info *in) {
	if (in->mem >= 0) H5Tclose(in->mem);
	if (in->dset >= 0) H5Dclose(in->dset);
	if (in->file >= 0) H5Fclose(in->file);
	in->mem = in->dset = in->file = -1;
}

static int th5_open(const char *path, const char *name, th5_info *in) {
	hid_t space = -1, dcpl = -1, ft = -1, dapl = -1;
	hsize_t maxdims[TH5_MAXRANK];
	int rc = -1, nf;
	size_t cache;
	th5_begin();
	memset(in, 0, sizeof *in);
	in->file = in->dset = in->mem = -1;
	if ((in->file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT)) < 0) { th5_fail("opening the file"); goto out; }
	if ((in->dset = H5Dopen2(in->file, name, H5P_DEFAULT)) < 0) { th5_fail("opening the dataset"); goto out; }
	if ((space = H5Dget_space(in->dset)) < 0) { th5_fail("reading the dataspace"); goto out; }
	if (H5Sget_simple_extent_type(space) == H5S_NULL) {
		th5_unsupported("dataspace", "null dataspace (no shape)");
		goto out;
	}
	if ((in->rank = H5Sget_simple_extent_ndims(space)) < 0) { th5_fail("reading the rank"); goto out; }
	if (in->rank > TH5_MAXRANK) { th5_unsupported("dataspace", "rank over 32"); goto out; }
	if (in->rank > 0 && H5Sget_simple_extent_dims(space, in->dims, maxdims) < 0) { th5_fail("reading the shape"); goto out; }
	if ((ft = H5Dget_type(in->dset)) < 0) { th5_fail("reading the element type"); goto out; }
	if ((dcpl = H5Dget_create_plist(in->dset)) < 0) { th5_fail("reading the creation properties"); goto out; }
	if ((in->layout = H5Pget_layout(dcpl)) < 0) { th5_fail("reading the layout"); goto out; }
	if (in->layout == H5D_CHUNKED) {
		double cb = (double)H5Tget_size(ft);
		if (H5Pget_chunk(dcpl, in->rank, in->chunk) < 0) { th5_fail("reading the chunk shape"); goto out; }
		// HDF5 refuses to create such chunks; libhdf5 1.10 reads a file
		// that has them anyway and overruns its buffers (a fuzzed file
		// whose chunk grew past its fixed dimension crashed h5py too).
		for (int i = 0; i < in->rank; i++) {
			cb *= (double)in->chunk[i];
			if (in->chunk[i] == 0 || (maxdims[i] != H5S_UNLIMITED && in->chunk[i] > maxdims[i])) {
				th5_unsupported("chunk shape", "corrupt: a chunk dimension is 0 or larger than its fixed dimension");
				goto out;
			}
		}
		if (cb > 4294967295.0) { th5_unsupported("chunk shape", "corrupt: a chunk of over 4 GiB"); goto out; }
	}
	if ((nf = H5Pget_nfilters(dcpl)) < 0) { th5_fail("reading the filters"); goto out; }
	for (int i = 0; i < nf; i++) {
		char nm[64] = "";
		unsigned flags = 0, conf = 0;
		size_t ncd = 0;
		size_t used = strlen(in->filters);
		if (H5Pget_filter2(dcpl, (unsigned)i, &flags, &ncd, NULL, sizeof nm, nm, &conf) < 0) { th5_fail("reading a filter"); goto out; }
		snprintf(in->filters + used, sizeof in->filters - used, "%s%s", i ? "\x1f" : "", nm);
	}
	if (th5_memtype(ft, in) < 0) goto out;
	if (in->layout == H5D_CHUNKED && (cache = th5_cache_bytes(in)) > 0) {
		// Reopened with a chunk cache that holds a few chunks: the
		// default 1 MiB holds no chunk over 1 MiB, and a chunk that
		// does not fit is decompressed again for every tile read of it.
		if ((dapl = H5Pcreate(H5P_DATASET_ACCESS)) < 0 ||
			H5Pset_chunk_cache(dapl, 12421, cache, 1.0) < 0) { th5_fail("setting the chunk cache"); goto out; }
		H5Dclose(in->dset);
		if ((in->dset = H5Dopen2(in->file, name, dapl)) < 0) { th5_fail("reopening the dataset"); goto out; }
	}
	rc = 0;
out:
	if (dapl >= 0) H5Pclose(dapl);
	if (ft >= 0) H5Tclose(ft);
	if (dcpl >= 0) H5Pclose(dcpl);
	if (space >= 0) H5Sclose(space);
	if (rc < 0) th5_close_info(in);
	return rc;
}

// th5_read reads the hyperslab th5_st.start/count into buf.
static int th5_read(hid_t dset, hid_t mem, int rank, void *buf) {
	hid_t fs = -1, ms = -1;
	int rc = -1;
	th5_begin();
	if ((fs = H5Dget_space(dset)) < 0) { th5_fail("reading the dataspace"); goto out; }
	if (rank > 0) {
		if (H5Sselect_hyperslab(fs, H5S_SELECT_SET, th5_st.start, NULL, th5_st.count, NULL) < 0) { th5_fail("selecting the region"); goto out; }
		ms = H5Screate_simple(rank, th5_st.count, NULL);
	} else {
		ms = H5Screate(H5S_SCALAR);
	}
	if (ms < 0) { th5_fail("making the memory dataspace"); goto out; }
	if (H5Dread(dset, mem, ms, fs, H5P_DEFAULT, buf) < 0) { th5_fail("reading"); goto out; }
	rc = 0;
out:
	if (ms >= 0) H5Sclose(ms);
	if (fs >= 0) H5Sclose(fs);
	return rc;
}

static int th5_close(hid_t file, hid_t dset, hid_t mem) {
	int rc = 0;
	th5_begin();
	if (H5Tclose(mem) < 0) rc = -1;
	if (H5Dclose(dset) < 0) rc = -1;
	if (H5Fclose(file) < 0) rc = -1;
	if (rc < 0) th5_fail("closing");
	return rc;
}
*/
import "C"

import (
	"fmt"
	"math"
	"os"
	"strings"
	"sync"
	"unsafe"

	"github.com/tessera-go/tessera/nd"
)

// Enabled reports whether this build reads HDF5 files: true here.
const Enabled = true

// lib serialises every HDF5 call and the reading of the C state the
// calls leave (the error records): a serial libhdf5 is not thread-safe,
// and a thread-safe one takes a global lock of its own, so nothing runs
// in parallel either way.
var lib sync.Mutex

// st is the C state of the last call, read under lib.
var st = C.th5_state()

// handle is an open dataset's HDF5 identifiers.
type handle struct {
	file, dset, mem C.hid_t
	rank            int
}

// lastError turns the C state of the failed call into an *Error (lib
// held).
func lastError(op, path, name, reason string) *Error {
	e := &Error{Op: op, Path: path, Dataset: name, Reason: C.GoString(st.step)}
	if reason != "" {
		e.Reason = reason + ": " + e.Reason
	}
	recs := C.GoStringN(&st.err[0], st.errlen)
	for rec := range strings.SplitSeq(recs, "\x1e") {
		f := strings.Split(rec, "\x1f")
		if len(f) != 4 {
			continue // a record cut by the buffer's end
		}
		e.Stack = append(e.Stack, Frame{Func: f[0], Major: f[1], Minor: f[2], Desc: f[3]})
	}
	switch {
	case st.unsup != 0:
		e.Err = fmt.Errorf("%w: %s", ErrUnsupported, C.GoString(&st.why[0]))
	case st.notfound != 0 && op == "open":
		e.Err = ErrNotFound
	}
	return e
}

func open(path, name string) (*Dataset, error) {
	fail := func(reason string, err error) error {
		return &Error{Op: "open", Path: path, Dataset: name, Reason: reason, Err: err}
	}
	// HDF5 would say so too, in five records; the os error says it in
	// one, and errors.Is(err, fs.ErrNotExist) works.
	if _, err := os.Stat(path); err != nil {
		return nil, fail("stat", err)
	}
	if strings.IndexByte(path, 0) >= 0 || strings.IndexByte(name, 0) >= 0 {
		return nil, fail("NUL byte in the path or the dataset name", nil)
	}
	cpath, cname := C.CString(path), C.CString(name)
	defer C.free(unsafe.Pointer(cpath))
	defer C.free(unsafe.Pointer(cname))
	in := (*C.th5_info)(C.calloc(1, C.sizeof_th5_info))
	if in == nil {
		return nil, fail("out of memory", nil)
	}
	defer C.free(unsafe.Pointer(in))
	lib.Lock()
	if C.th5_open(cpath, cname, in) < 0 {
		err := lastError("open", path, name, "")
		lib.Unlock()
		return nil, err
	}
	lib.Unlock()
	h := &handle{file: in.file, dset: in.dset, mem: in.mem, rank: int(in.rank)}
	d := &Dataset{path: path, name: name, h: h, bigEndian: in.big != 0}
	bad := func(reason string) (*Dataset, error) {
		d.Close()
		return nil, fail(reason, ErrUnsupported)
	}
	switch in.kind {
	case C.TH5_INT, C.TH5_UINT:
		signed := in.kind == C.TH5_INT
		d.dt = map[bool]map[C.size_t]nd.DType{
			true:  {1: nd.Int8, 2: nd.Int16, 4: nd.Int32, 8: nd.Int64},
			false: {1: nd.Uint8, 2: nd.Uint16, 4: nd.Uint32, 8: nd.Uint64},
		}[signed][in.size]
	case C.TH5_FLOAT:
		d.dt = map[C.size_t]nd.DType{4: nd.Float32, 8: nd.Float64}[in.size]
	case C.TH5_COMPLEX:
		d.dt = map[C.size_t]nd.DType{8: nd.Complex64, 16: nd.Complex128}[in.size]
	case C.TH5_BOOL:
		d.dt = nd.Bool
	}
	if !d.dt.Valid() {
		return bad(fmt.Sprintf("element kind %d of %d bytes", int(in.kind), int(in.size)))
	}
	switch in.layout {
	case C.H5D_COMPACT:
		d.layout = Compact
	case C.H5D_CONTIGUOUS:
		d.layout = Contiguous
	case C.H5D_CHUNKED:
		d.layout = Chunked
	case C.H5D_VIRTUAL:
		d.layout = Virtual
	default:
		return bad(fmt.Sprintf("layout %d", int(in.layout)))
	}
	d.shape = make([]int, d.h.rank)
	for i := range d.shape {
		if uint64(in.dims[i]) > math.MaxInt64 {
			return bad(fmt.Sprintf("dimension %d of %d", i, uint64(in.dims[i])))
		}
		d.shape[i] = int(in.dims[i])
		if d.layout == Chunked {
			d.chunks = append(d.chunks, int(in.chunk[i]))
		}
	}
	if n, err := nd.SizeOf(d.shape); err != nil || (n > 0 && n > math.MaxInt64/d.dt.Size()) {
		return bad(fmt.Sprintf("shape %v of %d-byte elements overflows a 64-bit size", d.shape, d.dt.Size()))
	}
	if f := C.GoString(&in.filters[0]); f != "" {
		d.filters = strings.Split(f, "\x1f")
	}
	return d, nil
}

func (h *handle) read(d *Dataset, dst []byte, start, count []int) error {
	lib.Lock()
	defer lib.Unlock()
	for i := range h.rank {
		st.start[i] = C.hsize_t(start[i])
		st.count[i] = C.hsize_t(count[i])
	}
	// dst holds no Go pointers and H5Dread does not keep it.
	if C.th5_read(h.dset, h.mem, C.int(h.rank), unsafe.Pointer(&dst[0])) < 0 {
		return lastError("read", d.path, d.name, fmt.Sprintf("region start %v count %v", start, count))
	}
	return nil
}

func (h *handle) close(d *Dataset) error {
	lib.Lock()
	defer lib.Unlock()
	if C.th5_close(h.file, h.dset, h.mem) < 0 {
		return lastError("close", d.path, d.name, "")
	}
	return nil
}

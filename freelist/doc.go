// Package freelist keeps large byte buffers for reuse: an explicit,
// bounded free list, owned by whoever made it (a compute run, a worker)
// and dropped with it. Tasks find their run's list in their context
// (FromContext) and fall back to plain allocation when there is none.
//
// # Model
//
// Get(n) returns a buffer of n bytes whose contents are garbage; Put gives
// it back. Buffers live in size classes, four per power of two from 4 KiB
// up (4, 5, 6, 7, 8, 10, 12, 14, 16 KiB, …). Get takes a held buffer of
// the request's class or of the next four (at most twice the size), the
// most recently put first, and otherwise allocates one of the request's
// class, at most 25% larger than asked for. Requests under
// 4 KiB are plain allocations and are never kept: Go's allocator serves
// small objects well, and the list is for the multi-megabyte block,
// chunk and tile buffers whose churn drives the collector.
//
// The list holds at most its limit of bytes: a Put that would pass it
// drops the buffer for the collector. The limit is fixed (New) or follows
// the work (NewAuto): slots times the largest buffer Get has handed out,
// so that a run of W workers with NewAuto(2·W) keeps about two buffers of
// the largest size per worker however large its blocks are. Buffers that
// are out (taken and not yet given back) do not count against the limit;
// they are the caller's memory. Close empties the list and makes later
// Puts drop their buffers, so that a run's memory goes when the run ends
// even if a straggling task still holds the list.
//
// Buffers are 8-byte aligned, so the typed views of nd (nd.ViewBytes) over
// them serve every numeric dtype. A nil *List is valid: Get allocates and
// Put drops, which is what code running outside any run sees.
//
// # Rules for users
//
// A buffer from Get belongs to the caller until it is put back, and must
// not be used afterwards; nothing that outlives the task (its result, a
// value it stores) may share memory with it. Putting a buffer twice
// without a Get in between is a programmer error and panics.
//
// # Rejected designs
//
// sync.Pool was the first version (one pool per dtype and power of two in
// chunkarray, one each in udfbridge, nd/zarr, nd/zarr/blosc and the
// distributed data server). Every garbage collection empties a sync.Pool,
// and a task that then allocates a fresh 16 MiB block triggers the next
// collection: the udf bench ran a collection every millisecond and took
// 2 to 7 times as long under the default GOGC as with the collector off.
// An explicit list is emptied only by its owner. A process-wide list was
// rejected as package-level mutable state that no run owns: it would keep
// memory after the last run, and its bound could not follow one run's
// workers. Powers of two alone wasted up to half of each buffer; quarter
// steps waste at most a fifth.
package freelist

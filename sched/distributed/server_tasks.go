package distributed

import (
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"math"
	"math/bits"
	"unsafe"

	"github.com/tessera-go/tessera/sched/distributed/pb"
)

// taskDefs is a job's task list as the scheduler keeps it: what the
// client's TaskDefs said, in a few flat arrays and no allocation per
// task, since a job may have millions of tasks.
//
// A task's key and node are one entry of an arena (uvarint key length,
// key, uvarint node length, node) in chunks of up to arenaChunk bytes (arenaCap); ref[i]
// locates task i's entry. Written bytes never change, so keys are strings
// over the arena (unsafe.String) and nodes subslices of it: TaskSpecs,
// KeyRefs and log lines name them without copying. Dependencies are one
// compressed array (deps of i: depFlat[depOff[i]:depOff[i+1]]);
// priorities are stored only when some task's is not its index (the
// client always sends the index); resources as an id into the job's
// distinct resource maps, only when some task has resources; keys are
// found by an open-addressing table of task indices (find), built when
// the job starts.
//
// Keeping the decoded *pb.TaskDef of each task (the first design) cost
// about 340 B per task of a reduction tree with short keys, 420 B with
// tokens in them: the message struct (128 B with its size class), the
// key, node and dependency allocations, the pointer to it, and a
// map[string]int32 from key to index. This layout keeps the key, node
// and dependency bytes, two varints, 12 bytes of offsets and 6 to 12 of
// key table; BenchmarkSchedulerMemoryPerTask measures the job's whole
// cost (141 B per task of that tree, 209 B with tokens).
type taskDefs struct {
	chunks  [][]byte
	ref     []uint64 // chunk index << 32 | offset in the chunk
	depOff  []int32  // len(ref)+1 entries once a task is added
	depFlat []int32
	prio    []int64 // nil while every priority equals its index
	resID   []int32 // nil while no task has resources; 0 is none
	res     []map[string]float64
	resSig  map[string]int32 // formatResources of res[id] -> id
	table   []int32          // task index + 1 by key hash; 0 is empty
	seed    maphash.Seed
	// Ops (constraints.go): TaskDef.place_op by task, nil while every
	// one is 0; the nested ops of the few tasks that have some.
	ops    []int32
	nested map[int32][]int32
}

// arenaChunk is the size of the arena's chunks: appending never copies
// what was written, and at most one entry's worth is left unused at the
// end of each chunk. An entry larger than a quarter of it gets a chunk of
// its own.
const arenaChunk = 1 << 20

// arenaCap is the capacity of the next chunk of an arena that has n: 4 KiB
// doubling up to arenaChunk (a job of one tiny task, a Submit, allocated
// 1 MiB on the client and 1 MiB on the scheduler), and at least need (a
// node of more than a quarter of arenaChunk gets a chunk of its own).
func arenaCap(n, need int) int {
	if need > arenaChunk/4 {
		return need
	}
	if n >= 8 {
		return arenaChunk
	}
	return max(4096<<n, need)
}

func (d *taskDefs) len() int { return len(d.ref) }

// add appends def to the list. It fails only when the job outgrows the
// 32-bit offsets of its dependency array.
func (d *taskDefs) add(def *pb.TaskDef) error {
	i := len(d.ref)
	if len(d.depOff) == 0 {
		d.depOff = append(d.depOff, 0)
	}
	if len(d.depFlat)+len(def.Deps) > math.MaxInt32 {
		return fmt.Errorf("the job's tasks list more than %d dependencies in all", math.MaxInt32)
	}
	// The entry.
	size := 2*binary.MaxVarintLen64 + len(def.Key) + len(def.Node)
	c := len(d.chunks) - 1
	if c < 0 || len(d.chunks[c])+size > cap(d.chunks[c]) {
		d.chunks = append(d.chunks, make([]byte, 0, arenaCap(len(d.chunks), size)))
		c++
	}
	b := d.chunks[c]
	d.ref = append(d.ref, uint64(c)<<32|uint64(len(b)))
	b = binary.AppendUvarint(b, uint64(len(def.Key)))
	b = append(b, def.Key...)
	b = binary.AppendUvarint(b, uint64(len(def.Node)))
	b = append(b, def.Node...)
	d.chunks[c] = b
	// Dependencies.
	d.depFlat = append(d.depFlat, def.Deps...)
	d.depOff = append(d.depOff, int32(len(d.depFlat)))
	// Priority: the index, until a task says otherwise.
	if d.prio == nil && def.Priority != int64(i) {
		d.prio = make([]int64, i, max(2*i, 16))
		for k := range d.prio {
			d.prio[k] = int64(k)
		}
	}
	if d.prio != nil {
		d.prio = append(d.prio, def.Priority)
	}
	// Resources, one map per distinct signature.
	id := int32(0)
	if len(def.Resources) > 0 {
		sig := formatResources(def.Resources)
		var ok bool
		if id, ok = d.resSig[sig]; !ok {
			if d.resSig == nil {
				d.resSig = map[string]int32{}
				d.res = []map[string]float64{nil}
			}
			id = int32(len(d.res))
			d.res = append(d.res, def.Resources)
			d.resSig[sig] = id
		}
		if d.resID == nil {
			d.resID = make([]int32, i, max(2*i, 16))
		}
	}
	if d.resID != nil {
		d.resID = append(d.resID, id)
	}
	// Ops.
	if d.ops == nil && def.PlaceOp != 0 {
		d.ops = make([]int32, i, max(2*i, 16))
	}
	if d.ops != nil {
		d.ops = append(d.ops, def.PlaceOp)
	}
	if len(def.PlaceNestedOps) > 0 {
		if d.nested == nil {
			d.nested = map[int32][]int32{}
		}
		d.nested[int32(i)] = def.PlaceNestedOps
	}
	return nil
}

// op returns task i's op, as 1 + its index in the job's op table; 0 for
// none.
func (d *taskDefs) op(i int32) int32 {
	if d.ops == nil {
		return 0
	}
	return d.ops[i]
}

// nestedOps returns the ops nested in task i's arguments, like op.
func (d *taskDefs) nestedOps(i int32) []int32 {
	if d.nested == nil {
		return nil
	}
	return d.nested[i]
}

// resIndex returns the id of task i's resources among the job's distinct
// ones; 0 for none.
func (d *taskDefs) resIndex(i int32) int32 {
	if d.resID == nil {
		return 0
	}
	return d.resID[i]
}

// entry returns the chunk holding task i's entry and the entry's offset.
func (d *taskDefs) entry(i int32) ([]byte, int) {
	r := d.ref[i]
	return d.chunks[r>>32], int(uint32(r))
}

// key returns task i's key, a string over the arena.
func (d *taskDefs) key(i int32) string {
	b, off := d.entry(i)
	n, w := binary.Uvarint(b[off:])
	if n == 0 {
		return ""
	}
	return unsafe.String(&b[off+w], int(n))
}

// node returns task i's encoded node, a subslice of the arena that no
// append can reach.
func (d *taskDefs) node(i int32) []byte {
	b, off := d.entry(i)
	n, w := binary.Uvarint(b[off:])
	off += w + int(n)
	m, w := binary.Uvarint(b[off:])
	off += w
	end := off + int(m)
	return b[off:end:end]
}

func (d *taskDefs) deps(i int32) []int32 { return d.depFlat[d.depOff[i]:d.depOff[i+1]] }

func (d *taskDefs) priority(i int32) int64 {
	if d.prio == nil {
		return int64(i)
	}
	return d.prio[i]
}

// resources returns the resources task i needs; nil for none. The map is
// shared by every task of the same needs: it is only read.
func (d *taskDefs) resources(i int32) map[string]float64 {
	if d.resID == nil {
		return nil
	}
	return d.res[d.resID[i]]
}

// initIndex makes the key table empty, sized for every task.
func (d *taskDefs) initIndex() {
	n := len(d.ref)
	d.table = make([]int32, 1<<bits.Len(uint(n+n/2))) // load at most 2/3
	d.seed = maphash.MakeSeed()
}

// insert enters task i's key in the table. For a key already there it
// returns the index of the task that has it, and true.
func (d *taskDefs) insert(i int32) (int32, bool) {
	k := d.key(i)
	mask := uint64(len(d.table) - 1)
	for h := maphash.String(d.seed, k) & mask; ; h = (h + 1) & mask {
		x := d.table[h]
		if x == 0 {
			d.table[h] = i + 1
			return -1, false
		}
		if d.key(x-1) == k {
			return x - 1, true
		}
	}
}

// find returns the index of the task with key k, among those inserted.
func (d *taskDefs) find(k string) (int32, bool) {
	if len(d.table) == 0 {
		return -1, false
	}
	mask := uint64(len(d.table) - 1)
	for h := maphash.String(d.seed, k) & mask; ; h = (h + 1) & mask {
		x := d.table[h]
		if x == 0 {
			return -1, false
		}
		if d.key(x-1) == k {
			return x - 1, true
		}
	}
}

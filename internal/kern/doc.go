// Package kern holds fused convert-and-reduce kernels for detector data:
// uint16 tiles summed as float32 without materialising the float32 tile.
// udfbridge's SumUDF and SumSigUDF use them on the tiles of uint16
// datasets (the common detector dtype), where converting a tile to
// float32 and then reducing it cost three passes over twice the bytes.
//
// # Same bits as the converting path
//
// Every kernel performs the float32 additions of the path it replaces, in
// the same order, so its results are bit for bit those of converting the
// tile with nd.AsTypeInto and reducing it with nd's kernels:
//
//   - AddColSumsU16 (the sum over frames, per pixel) adds the rows in row
//     order starting from zero, as nd.Reduce over axis 0 and udfbridge's
//     sumRows do, and adds that sum into dst once;
//   - RowSummer.AddRowSumsU16 (the sum over each frame) is numpy's
//     pairwise summation as nd implements it: runs of at most 128
//     elements summed in eight interleaved accumulators, combined as
//     ((r0+r1)+(r2+r3))+((r4+r5)+(r6+r7)) plus the tail in order; longer
//     runs split in two at half the length rounded down to a multiple of
//     eight.
//
// Every uint16 is exactly a float32, so the conversion itself rounds
// nothing; the additions round, which is why their order is kept. Exact
// integer accumulation was rejected: it equals the float32 result only
// while every partial sum stays below 2^24, which a sum of 257 frames of
// 65535 already exceeds.
//
// # Assembly and the portable path
//
// On amd64 the kernels are Go assembly using AVX2 (chosen at run time
// with golang.org/x/sys/cpu); eight float32 lanes are exactly pairwise
// summation's eight accumulators, so the vector leaf is the scalar one
// with its additions done side by side, not reassociated. Elsewhere, or
// with the purego build tag, the same loops run in Go. The tests compare
// both on random and extreme data of every length up to 300 and on
// misaligned slices; AVX-512 was not added: the kernels run from L2 at a
// few bytes per cycle, well above what the file read before them
// delivers, and 16 lanes would not match the eight accumulators.
package kern

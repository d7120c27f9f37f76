// Package kern holds fused convert-and-reduce kernels for detector data:
// uint16 tiles summed as float32 without materialising the float32 tile.
// udfbridge's SumUDF and SumSigUDF use them on the tiles of uint16
// datasets (the common detector dtype), where converting a tile to
// float32 and then reducing it cost three passes over twice the bytes;
// its ApplyMasksUDF uses the masked dot products (below).
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
//
// # Masked dot products
//
// MaskDotU16 and MaskDotF32 add to out (t × k) the dot product of each of
// t frames of r pixels with each of k masks: LiberTEM's virtual
// detectors. The masks are stored pixel-major (PixelMajor: r rows of
// MaskStride(k), k rounded up to a multiple of 8 with zero columns), so
// that one pixel's values in every mask are one or two contiguous
// vectors. On amd64 with AVX2 and FMA a pass covers four frames by
// sixteen masks in eight YMM accumulators: per pixel it loads the mask
// row once and does one fused multiply-add per frame and vector, so each
// mask value loaded is used four times (sixteen float32 masks of 256×256
// are 4 MiB, more than L2). Pixels go in chunks of MaskChunk (256): the
// outer loop runs over chunks, so a chunk of masks (16 KiB for sixteen)
// serves every frame of the tile from L1; each chunk is summed from zero
// and its sum added into out. The uint16 kernel converts each chunk of
// frames into a 4 KiB buffer and runs the same float32 code, so its
// results are bit for bit those of MaskDotF32 on the converted tile
// (udfbridge relies on it to skip the conversion). Fewer than four frames
// go one at a time, and eight-mask blocks cover the last k mod 16.
//
// These are not gonum's (BLAS sgemm's) results: the order of additions
// differs, and the assembly rounds each product-and-add once (FMA) where
// the portable loop rounds the product and then the sum. Neither is the
// "right" float32 answer; both are within rounding of the exact dot
// product. With u = 2^-24, each output is within (MaskChunk + 1 +
// chunks + 1)·u·(|out0| + Σ|x·m|) of the exact value (a product rounded,
// at most MaskChunk additions in a chunk, one addition of each chunk sum
// into out), which the tests check against a float64 oracle for both
// code paths: for a 256×256 frame (256 chunks) about 3·10^-5 of Σ|x·m|
// at worst, and in practice far less, as rounding errors of random sign
// cancel. Summing from zero per chunk is what keeps the bound small: one
// running sum over 65,536 pixels would allow 0.4%.
package kern

/**
 * The Himeno benchmark (Jacobi iteration with the original 19-point stencil) decomposed over i×j
 * ranks on the message-passing layer, timing calculation, halo exchange and allreduce.
 */
package io.github.verbs4j.examples.himeno;

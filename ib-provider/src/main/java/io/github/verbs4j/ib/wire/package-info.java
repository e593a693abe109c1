/**
 * IBTA-like wire formats of the simulated HCA: one final class per header (LRH, BTH, RETH, AETH,
 * AtomicETH, AtomicAckETH, ImmDt, DETH, the verbs4j DC header and the ICRC trailer) with offset
 * constants and static accessors over a Netty {@code ByteBuf}, the {@link
 * io.github.verbs4j.ib.wire.Opcode} table that says which headers each opcode carries, and 24-bit
 * PSN arithmetic. Every multi-byte field is big-endian (network order).
 */
package io.github.verbs4j.ib.wire;

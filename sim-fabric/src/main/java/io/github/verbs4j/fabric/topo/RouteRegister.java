package io.github.verbs4j.fabric.topo;

/**
 * One PEACH2 routing register (seed 001 §3.4): a frame whose address, masked, falls in {@code [low,
 * high]} leaves by {@code port}. Static routes are a handful of these per port.
 *
 * @param port the output port
 * @param mask the address mask (upper bits compared)
 * @param low lowest masked address routed to {@code port}
 * @param high highest masked address routed to {@code port}
 */
public record RouteRegister(Port port, long mask, long low, long high) {
  /**
   * @param address a global address
   * @return true if this register routes it
   */
  public boolean matches(long address) {
    long m = address & mask;
    return Long.compareUnsigned(m, low) >= 0 && Long.compareUnsigned(m, high) <= 0;
  }
}

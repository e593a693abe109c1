package io.github.verbs4j.tca.peach2;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * PEACH2's interrupt control register, which other nodes can write (seed 001 §3.5: a remote node
 * registers a request, then raises an interrupt so that the target's driver serves it). A write ORs
 * its value into the pending bits; if any pending bit is enabled, one interrupt is delivered to the
 * host — charged {@link Peach2Params#interruptNs()} and running the host's handler — and the
 * enable mask is cleared until the host enables it again (the host polls while busy and enables
 * interrupts only before it sleeps). Thread-safe.
 */
public final class InterruptRegister {
  private final AtomicInteger pending = new AtomicInteger();
  private final AtomicInteger enabled = new AtomicInteger();
  private final HostClock clock;
  private final Peach2Params params;
  private final Peach2Counters counters;
  private volatile Runnable handler;

  InterruptRegister(Peach2Params params, HostClock clock, Peach2Counters counters) {
    this.params = params;
    this.clock = clock;
    this.counters = counters;
  }

  /** @param handler the host's interrupt handler (runs on the thread that lands the write) */
  public void setHandler(Runnable handler) {
    this.handler = handler;
  }

  /**
   * A write to the register (by a remote board or locally).
   *
   * @param bits bits to set
   */
  void write(int bits) {
    counters.interruptWrite();
    pending.getAndAccumulate(bits, (a, b) -> a | b);
    deliverIfEnabled();
  }

  private void deliverIfEnabled() {
    int en = enabled.get();
    if (en != 0 && (pending.get() & en) != 0 && enabled.compareAndSet(en, 0)) {
      counters.interruptDelivered();
      clock.charge(params.interruptNs());
      Runnable h = handler;
      if (h != null) {
        h.run();
      }
    }
  }

  /**
   * The host enables interrupts for {@code mask}; if a masked bit is already pending, the
   * interrupt is delivered at once.
   *
   * @param mask bits that interrupt
   */
  public void enable(int mask) {
    enabled.set(mask);
    deliverIfEnabled();
  }

  /** The host masks every bit (it is polling). */
  public void disable() {
    enabled.set(0);
  }

  /** @return the pending bits, cleared */
  public int takePending() {
    return pending.getAndSet(0);
  }

  /** @return the pending bits */
  public int pending() {
    return pending.get();
  }

  /** @return whether any bit is enabled */
  public boolean isEnabled() {
    return enabled.get() != 0;
  }
}

package io.github.verbs4j.examples.gmpi;

import io.github.verbs4j.examples.common.Backoff;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The two rings between the accelerator and the host daemon (seed 004 §3.2), in memory both sides
 * reach: the request ring (mapped host memory the warps store into) and the answer ring (device
 * memory the daemon writes and the warps poll). Each ring is {@code size} 8-byte words, a power of
 * two; a request takes 32 words (one per lane of a warp) at {@code head & (size - 1)}, and the head
 * advances by 32, so the ring holds {@code size / 32} requests. The protocol, with a diagram, is in
 * {@code docs/gmpi.md}:
 *
 * <ul>
 *   <li>Word 0 of a request slot is its header, {@code ticket << 16 | argc << 8 | function}, where
 *       the ticket is the request's number ({@code head / 32}). Function 0 means "free for this
 *       ticket"; the header is written last, with release semantics, after the 31 argument lanes.
 *   <li>A warp claims ticket {@code t} by a CAS of the head from {@code 32t} to {@code 32(t+1)},
 *       only when the slot's header reads "free for t". A header with an older ticket means the
 *       ring is full: the warp backs off and retries (back-pressure), bounded by a timeout.
 *   <li>The daemon reads tickets in order: it waits for header {@code t << 16 | argc << 8 | f},
 *       reads the arguments, performs the call and writes the answer slot (same index) with its
 *       header {@code t << 16 | words << 8 | code} last, with release semantics.
 *   <li>The warp that owns ticket {@code t} reads its answer, then frees its request slot for ticket
 *       {@code t + size/32}. So a slot and its answer slot belong to one warp from claim to free.
 * </ul>
 *
 * <p>No locks on the device side: a CAS on the head and release/acquire on the header words. The
 * modelled times travel beside the slots ({@code visibleAt}, {@code answerAt}, the simulator's own
 * bookkeeping, published by the same release stores). Device methods are called by warps
 * concurrently; host methods by the daemon's thread only.
 */
public final class AttributeRing {
  /** Lanes of a warp, words of a slot. */
  public static final int SLOT_WORDS = 32;
  /** Arguments an attribute can carry (lane 0 holds the header). */
  public static final int MAX_ARGS = SLOT_WORDS - 1;
  /** Answer code: done. */
  public static final int OK = 1;
  /** Answer code: the host call failed. */
  public static final int ERROR = 2;
  private static final VarHandle WORD = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  private final ByteBuffer requests;
  private final ByteBuffer answers;
  private final int headOffset;
  private final int mask;
  private final int capacity;
  private final long[] visibleAt;
  private final long[] answerAt;
  private final AtomicLong fullWaits = new AtomicLong();
  private long tail;

  /**
   * @param requests the request ring and head: {@code size * 8 + 64} bytes of mapped memory
   * @param answers the answer ring: {@code size * 8} bytes
   * @param size words per ring, a power of two of at least 32
   */
  public AttributeRing(ByteBuffer requests, ByteBuffer answers, int size) {
    if (size < SLOT_WORDS || Integer.bitCount(size) != 1) {
      throw new IllegalArgumentException("size=" + size + " must be a power of two of at least " + SLOT_WORDS);
    }
    if (requests.capacity() < size * 8L + 64 || answers.capacity() < size * 8L) {
      throw new IllegalArgumentException("ring memory of " + requests.capacity() + " and " + answers.capacity()
          + " bytes is too small for size=" + size);
    }
    this.requests = requests;
    this.answers = answers;
    this.headOffset = size * 8;
    this.mask = size - 1;
    this.capacity = size / SLOT_WORDS;
    this.visibleAt = new long[capacity];
    this.answerAt = new long[capacity];
    WORD.setVolatile(requests, headOffset, 0L);
    for (int s = 0; s < capacity; s++) {
      WORD.setVolatile(answers, s * SLOT_WORDS * 8, -1L);
      WORD.setVolatile(requests, s * SLOT_WORDS * 8, (long) s << 16);
    }
  }

  /** @return requests the ring holds at once */
  public int capacity() {
    return capacity;
  }

  /** @return how many times a warp found the ring full and backed off */
  public long fullWaits() {
    return fullWaits.get();
  }

  private int slotOffset(long ticket) {
    return (int) ((ticket * SLOT_WORDS) & mask) * 8;
  }

  // ---- device side (warps, concurrently) ----

  /**
   * Claims a slot, stores the attribute as the 32 lanes would (arguments, then the header with
   * release semantics) and returns the ticket.
   *
   * @param f the function
   * @param args the arguments in {@code args[0..argc)}
   * @param argc 0..31
   * @param clock the warp's modelled clock; the request's visibility time is derived from it
   * @param costs the cost model
   * @param timeout how long a full ring may block the warp
   * @return the ticket
   * @throws GmpiException if the ring stays full for {@code timeout}
   */
  public long submit(GmpiFunction f, long[] args, int argc, ModelledClock clock, AcceleratorCosts costs,
      Duration timeout) {
    if (argc < 0 || argc > MAX_ARGS) {
      throw new IllegalArgumentException("argc=" + argc + " must be between 0 and " + MAX_ARGS);
    }
    long ticket = claim(f, timeout);
    int base = slotOffset(ticket);
    for (int lane = 1; lane < SLOT_WORDS; lane++) { // one coalesced 256-byte store by lanes 1..31
      WORD.set(requests, base + lane * 8, lane <= argc ? args[lane - 1] : 0L);
    }
    visibleAt[(int) (ticket % capacity)] = clock.now() + costs.requestNanos(argc);
    WORD.setRelease(requests, base, ticket << 16 | (long) argc << 8 | f.value()); // lane 0, last
    return ticket;
  }

  private long claim(GmpiFunction f, Duration timeout) {
    Backoff backoff = null;
    long deadline = 0;
    while (true) {
      long head = (long) WORD.getVolatile(requests, headOffset);
      long ticket = head / SLOT_WORDS;
      long header = (long) WORD.getAcquire(requests, slotOffset(ticket));
      if (header == ticket << 16) {
        if (WORD.compareAndSet(requests, headOffset, head, head + SLOT_WORDS)) {
          return ticket;
        }
        continue; // another warp took it
      }
      if ((header >>> 16) < ticket) { // still held by ticket - capacity: full
        fullWaits.incrementAndGet();
        if (backoff == null) {
          backoff = Backoff.forLatency();
          deadline = System.nanoTime() + timeout.toNanos();
        } else if (System.nanoTime() - deadline > 0) {
          throw new GmpiException(f.cName() + ": the request ring (" + capacity + " slots) stayed full for " + timeout
              + " at ticket " + ticket + "; is the host daemon running?");
        }
        backoff.idle();
      }
      // else the head moved on under us: reread it
    }
  }

  /**
   * Waits for the answer to {@code ticket}, copies its words, advances the warp's clock to when it
   * is seen, and frees the request slot for the next lap.
   *
   * @param ticket the ticket
   * @param f the function (for messages)
   * @param out receives the answer words (at least 31 long)
   * @param clock the warp's clock
   * @param timeout the longest wait
   * @return the answer code, {@link #OK} or {@link #ERROR}
   * @throws GmpiException if no answer comes within {@code timeout}
   */
  public int awaitAnswer(long ticket, GmpiFunction f, long[] out, ModelledClock clock, Duration timeout) {
    int base = slotOffset(ticket);
    long header = (long) WORD.getAcquire(answers, base);
    if (header >>> 16 != ticket || header == -1L) {
      Backoff backoff = Backoff.forLatency();
      long deadline = System.nanoTime() + timeout.toNanos();
      while ((header = (long) WORD.getAcquire(answers, base)) == -1L || header >>> 16 != ticket) {
        if (System.nanoTime() - deadline > 0) {
          throw new GmpiException(f.cName() + " (ticket " + ticket + "): no answer from the host daemon within "
              + timeout);
        }
        backoff.idle();
      }
    }
    int words = (int) (header >>> 8 & 0xff);
    for (int i = 0; i < words; i++) {
      out[i] = (long) WORD.get(answers, base + (i + 1) * 8);
    }
    clock.advanceTo(answerAt[(int) (ticket % capacity)]);
    WORD.setRelease(requests, base, (ticket + capacity) << 16); // free for the next lap
    return (int) (header & 0xff);
  }

  // ---- host side (the daemon's thread) ----

  /** @return the ticket the daemon reads next */
  public long tail() {
    return tail;
  }

  /**
   * Reads the next request if it has been published.
   *
   * @param args receives the arguments (at least 31 long)
   * @return its header ({@code ticket << 16 | argc << 8 | function}), or -1 if the ring is empty
   */
  public long poll(long[] args) {
    int base = slotOffset(tail);
    long header = (long) WORD.getAcquire(requests, base);
    if (header >>> 16 != tail || (header & 0xff) == 0) {
      return -1;
    }
    int argc = (int) (header >>> 8 & 0xff);
    for (int i = 0; i < argc; i++) {
      args[i] = (long) WORD.get(requests, base + (i + 1) * 8);
    }
    tail++;
    return header;
  }

  /**
   * @param ticket a ticket that {@link #poll} returned
   * @return the modelled time the host holds the whole attribute
   */
  public long visibleAt(long ticket) {
    return visibleAt[(int) (ticket % capacity)];
  }

  /**
   * Writes the answer to {@code ticket}: result words, then the header with release semantics.
   *
   * @param ticket the ticket
   * @param code {@link #OK} or {@link #ERROR}
   * @param results the result words
   * @param n how many, 0..31
   * @param readyAt the modelled time the warp can see it
   */
  public void answer(long ticket, int code, long[] results, int n, long readyAt) {
    int base = slotOffset(ticket);
    for (int i = 0; i < n; i++) {
      WORD.set(answers, base + (i + 1) * 8, results[i]);
    }
    answerAt[(int) (ticket % capacity)] = readyAt;
    WORD.setRelease(answers, base, ticket << 16 | (long) n << 8 | code);
  }
}

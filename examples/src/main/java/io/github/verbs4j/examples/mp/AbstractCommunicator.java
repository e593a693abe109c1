package io.github.verbs4j.examples.mp;

import io.github.verbs4j.verbs.config.VerbsConfig;
import io.github.verbs4j.verbs.spi.runtime.IdleStrategyKey;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import org.agrona.concurrent.IdleStrategy;

/**
 * Everything a communicator builds on point-to-point messages: argument checks, bounded waiting,
 * the dissemination barrier and the recursive-doubling allreduce. Collectives use a separate
 * matching context, so they never match user messages.
 *
 * <p>An implementation moves messages ({@link #isend(ByteBuffer, int, int, int)}, {@link
 * #irecv(ByteBuffer, int, int, int)}) and makes progress ({@link #progress()}); between empty
 * progress calls a wait idles with an Agrona {@link IdleStrategy} (by default the runtime's {@code
 * verbs.idle-strategy} numbers, {@link IdleStrategyKey}).
 */
public abstract class AbstractCommunicator implements Communicator {
  /** The matching context of user messages. */
  static final int USER = 0;
  /** The matching context of collectives. */
  static final int COLLECTIVE = 1;
  private static final int BARRIER = 1;
  private static final int ALLREDUCE = 2;
  /** The tags of the barrier a closing communicator runs after its last sends (its own kind of message). */
  static final int FENCE = 3;
  private static final int LAST_ROUND = 0xff;

  private final int rank;
  private final int size;
  private final Duration timeout;
  private final IdleStrategy idle;

  /**
   * A communicator whose waits idle by the configured {@code verbs.idle-strategy} ({@link
   * IdleStrategyKey#of(VerbsConfig)}: spins, yields, then parks).
   *
   * @param rank this rank
   * @param size the number of ranks
   * @param timeout the longest wait for one request
   */
  protected AbstractCommunicator(int rank, int size, Duration timeout) {
    this(rank, size, timeout, IdleStrategyKey.of(VerbsConfig.load()).newIdleStrategy());
  }

  /**
   * @param rank this rank
   * @param size the number of ranks
   * @param timeout the longest wait for one request
   * @param idle how a wait idles after a progress call that did nothing (its own instance: it has
   *     state)
   */
  protected AbstractCommunicator(int rank, int size, Duration timeout, IdleStrategy idle) {
    this.rank = rank;
    this.size = size;
    this.timeout = timeout;
    this.idle = idle;
  }

  /**
   * Starts a send in a matching context.
   *
   * @param data the message
   * @param dest the destination
   * @param tag the tag
   * @param context {@link #USER} or {@link #COLLECTIVE}
   * @return the request
   */
  protected abstract Request isend(ByteBuffer data, int dest, int tag, int context);

  /**
   * Starts a receive in a matching context.
   *
   * @param into the destination buffer
   * @param source a rank or {@link #ANY_SOURCE}
   * @param tag a tag or {@link #ANY_TAG}
   * @param context {@link #USER} or {@link #COLLECTIVE}
   * @return the request
   */
  protected abstract Request irecv(ByteBuffer into, int source, int tag, int context);

  /**
   * Does pending work without blocking.
   *
   * @return how much work was done (0 when idle)
   */
  protected abstract int progress();

  /** @return what a timed-out wait reports about the implementation's state */
  protected String diagnostics() {
    return "";
  }

  @Override
  public final int rank() {
    return rank;
  }

  @Override
  public final int size() {
    return size;
  }

  /** @return the longest wait for one request */
  public final Duration timeout() {
    return timeout;
  }

  @Override
  public final Request isend(ByteBuffer data, int dest, int tag) {
    checkRank("dest", dest, false);
    checkTag(tag, false);
    return isend(data, dest, tag, USER);
  }

  @Override
  public final Request irecv(ByteBuffer into, int source, int tag) {
    checkRank("source", source, true);
    checkTag(tag, true);
    return irecv(into, source, tag, USER);
  }

  private void checkRank(String what, int r, boolean anyAllowed) {
    if ((r < 0 || r >= size) && !(anyAllowed && r == ANY_SOURCE)) {
      throw new IllegalArgumentException(what + "=" + r + " is not a rank of this communicator (size " + size + ")");
    }
  }

  private static void checkTag(int tag, boolean anyAllowed) {
    if (tag < 0 && !(anyAllowed && tag == ANY_TAG)) {
      throw new IllegalArgumentException("tag=" + tag + " must be 0 or more");
    }
  }

  @Override
  public final Status wait(Request request) {
    if (!request.isDone()) {
      long deadline = System.nanoTime() + timeout.toNanos();
      idle.reset();
      int rounds = 0;
      while (true) {
        int work = progress();
        if (request.isDone()) {
          break;
        }
        idle.idle(work);
        // every 64th round, busy or not: work that never finishes the request must still time out
        if ((++rounds & 0x3f) == 0 && System.nanoTime() - deadline > 0) {
          throw new MpException("rank " + rank + ": " + request + " did not finish within " + timeout.toMillis()
              + " ms" + diagnostics(), request.peer);
        }
      }
    }
    return request.status();
  }

  @Override
  public final void waitAll(Request... requests) {
    for (Request r : requests) {
      wait(r);
    }
  }

  @Override
  public final void barrier() {
    disseminate(BARRIER, (dest, tag, empty) -> isend(empty, dest, tag, COLLECTIVE));
  }

  /** Posts an empty message of a barrier's round. */
  @FunctionalInterface
  protected interface RoundSend {
    /**
     * @param dest the rank it goes to
     * @param tag its tag (collective context)
     * @param empty an empty buffer
     * @return the send's request
     */
    Request post(int dest, int tag, ByteBuffer empty);
  }

  /**
   * A dissemination barrier (Hensgen, Finkel and Manber): in round {@code i} each rank sends to
   * rank + 2^i and receives from rank - 2^i, so after ⌈log2 size⌉ rounds every rank has heard,
   * directly or not, from every other.
   *
   * @param kind the barrier's kind, the high bits of its tags ({@link #BARRIER}, {@link #FENCE})
   * @param send posts a round's message
   */
  protected final void disseminate(int kind, RoundSend send) {
    ByteBuffer empty = ByteBuffer.allocate(0);
    for (int k = 1, round = 0; k < size; k <<= 1, round++) {
      int tag = kind << 8 | round;
      Request in = irecv(empty, (rank - k + size) % size, tag, COLLECTIVE);
      Request out = send.post((rank + k) % size, tag, empty);
      waitAll(in, out);
    }
  }

  @Override
  public final void allreduce(double[] values, ReduceOp op) {
    ByteBuffer mine = ByteBuffer.allocate(values.length * Double.BYTES).order(ByteOrder.LITTLE_ENDIAN);
    ByteBuffer theirs = ByteBuffer.allocate(values.length * Double.BYTES).order(ByteOrder.LITTLE_ENDIAN);
    allreduce(mine, theirs, new Combiner() {
      @Override
      public void store(ByteBuffer b) {
        for (int i = 0; i < values.length; i++) {
          b.putDouble(i * Double.BYTES, values[i]);
        }
      }

      @Override
      public void combine(ByteBuffer other, boolean otherIsLower) {
        for (int i = 0; i < values.length; i++) {
          double o = other.getDouble(i * Double.BYTES);
          values[i] = otherIsLower ? op.apply(o, values[i]) : op.apply(values[i], o);
        }
      }

      @Override
      public void load(ByteBuffer b) {
        for (int i = 0; i < values.length; i++) {
          values[i] = b.getDouble(i * Double.BYTES);
        }
      }
    });
  }

  @Override
  public final void allreduce(long[] values, ReduceOp op) {
    ByteBuffer mine = ByteBuffer.allocate(values.length * Long.BYTES).order(ByteOrder.LITTLE_ENDIAN);
    ByteBuffer theirs = ByteBuffer.allocate(values.length * Long.BYTES).order(ByteOrder.LITTLE_ENDIAN);
    allreduce(mine, theirs, new Combiner() {
      @Override
      public void store(ByteBuffer b) {
        for (int i = 0; i < values.length; i++) {
          b.putLong(i * Long.BYTES, values[i]);
        }
      }

      @Override
      public void combine(ByteBuffer other, boolean otherIsLower) {
        for (int i = 0; i < values.length; i++) {
          long o = other.getLong(i * Long.BYTES);
          values[i] = otherIsLower ? op.apply(o, values[i]) : op.apply(values[i], o);
        }
      }

      @Override
      public void load(ByteBuffer b) {
        for (int i = 0; i < values.length; i++) {
          values[i] = b.getLong(i * Long.BYTES);
        }
      }
    });
  }

  /** How allreduce moves one array type in and out of bytes. */
  private interface Combiner {
    void store(ByteBuffer b);

    /** values = op(lower rank's operand, higher rank's operand), so every rank computes alike. */
    void combine(ByteBuffer other, boolean otherIsLower);

    void load(ByteBuffer b);
  }

  /**
   * Recursive doubling over the largest power of two p ≤ size; the first 2·(size−p) ranks pair up
   * first (the even one hands its values to the odd one and gets the result back at the end).
   */
  private void allreduce(ByteBuffer mine, ByteBuffer theirs, Combiner c) {
    if (size == 1) {
      return;
    }
    int p = Integer.highestOneBit(size);
    int rem = size - p;
    int newRank;
    if (rank < 2 * rem) {
      if (rank % 2 == 0) {
        c.store(mine);
        wait(isend(mine, rank + 1, ALLREDUCE << 8, COLLECTIVE));
        newRank = -1;
      } else {
        wait(irecv(theirs, rank - 1, ALLREDUCE << 8, COLLECTIVE));
        c.combine(theirs, true);
        newRank = rank / 2;
      }
    } else {
      newRank = rank - rem;
    }
    if (newRank >= 0) {
      for (int mask = 1, round = 1; mask < p; mask <<= 1, round++) {
        int newPartner = newRank ^ mask;
        int partner = newPartner < rem ? newPartner * 2 + 1 : newPartner + rem;
        int tag = ALLREDUCE << 8 | round;
        c.store(mine);
        Request in = irecv(theirs, partner, tag, COLLECTIVE);
        Request out = isend(mine, partner, tag, COLLECTIVE);
        waitAll(in, out);
        c.combine(theirs, partner < rank);
      }
    }
    if (rank < 2 * rem) {
      int tag = ALLREDUCE << 8 | LAST_ROUND;
      if (rank % 2 == 0) {
        wait(irecv(theirs, rank + 1, tag, COLLECTIVE));
        c.load(theirs);
      } else {
        c.store(mine);
        wait(isend(mine, rank - 1, tag, COLLECTIVE));
      }
    }
  }
}

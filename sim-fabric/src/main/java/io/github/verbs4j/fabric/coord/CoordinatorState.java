package io.github.verbs4j.fabric.coord;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The coordinator's key-value store and barriers, shared by the socket server and the in-JVM
 * fabric. Futures are completed outside the lock. Thread-safe.
 *
 * <p>A published value is read without the lock: in one JVM a thousand ranks each look up every
 * other rank's address (a million gets), and on a crowded host a thread preempted while holding
 * the monitor held up hundreds of others. Only a get that has to wait, and every put, take the
 * lock, so a waiter cannot miss the put that completes it.
 */
public final class CoordinatorState {
  private int size;
  private final Map<String, byte[]> kv = new ConcurrentHashMap<>();
  private final Map<String, List<CompletableFuture<byte[]>>> kvWaiters = new HashMap<>();
  private final Map<String, TreeSet<Integer>> entered = new HashMap<>();
  private final Map<String, CompletableFuture<Void>> barriers = new HashMap<>();
  /** The modelled-time steps: the round open now and what its reports add up to. */
  private long stepRound;
  private final java.util.BitSet stepRanks = new java.util.BitSet();
  private StepResult stepSum = StepResult.EMPTY;
  private CompletableFuture<StepResult> stepDone = new CompletableFuture<>();

  /**
   * One rank's report for a round of modelled-time steps ({@code verbs.fabric.mode=deterministic}
   * on netty).
   *
   * @param next the modelled time of the rank's earliest held event, {@link Long#MAX_VALUE} if none
   * @param sent frames it has handed to its transport so far
   * @param received frames it has taken from its transport so far
   * @param left whether the rank has left the steps (its program is done)
   * @param atBarrier whether the rank waits in a job barrier
   */
  public record StepReport(long next, long sent, long received, boolean left, boolean atBarrier) {}

  /**
   * What a round's reports add up to.
   *
   * @param next the earliest next event of all ranks
   * @param sent frames sent by all ranks
   * @param received frames received by all ranks: equal to {@code sent} when none is in flight
   * @param allLeft whether every rank has left
   * @param allAtBarrier whether every rank waits in a job barrier: it completes for all in this round
   */
  public record StepResult(long next, long sent, long received, boolean allLeft, boolean allAtBarrier) {
    static final StepResult EMPTY = new StepResult(Long.MAX_VALUE, 0, 0, true, true);

    StepResult plus(StepReport r) {
      return new StepResult(Math.min(next, r.next()), sent + r.sent(), received + r.received(), allLeft && r.left(),
          allAtBarrier && r.atBarrier());
    }
  }

  /** @param size the number of ranks a barrier waits for */
  public CoordinatorState(int size) {
    this.size = size;
  }

  /** @return the number of ranks */
  public synchronized int size() {
    return size;
  }

  /**
   * Changes the number of ranks (the local fabric grows as nodes are added) and releases barriers
   * that are now complete.
   *
   * @param newSize the number of ranks
   */
  public void setSize(int newSize) {
    List<CompletableFuture<Void>> done = new ArrayList<>();
    synchronized (this) {
      size = newSize;
      for (Map.Entry<String, TreeSet<Integer>> e : entered.entrySet()) {
        if (e.getValue().size() >= size) {
          done.add(barriers.get(e.getKey()));
        }
      }
    }
    done.forEach(f -> f.complete(null));
  }

  /**
   * Publishes a value (write-once).
   *
   * @param key the key
   * @param value the value
   * @throws IllegalArgumentException naming the key if it holds another value
   */
  public void put(String key, byte[] value) {
    List<CompletableFuture<byte[]>> waiters;
    byte[] v = value.clone();
    synchronized (this) {
      byte[] old = kv.get(key);
      if (old != null) {
        if (!Arrays.equals(old, v)) {
          throw new IllegalArgumentException("key '" + key + "' already holds another value (" + old.length
              + " bytes); keys are write-once");
        }
        return;
      }
      kv.put(key, v);
      waiters = kvWaiters.remove(key);
    }
    if (waiters != null) {
      waiters.forEach(f -> f.complete(v.clone()));
    }
  }

  /**
   * @param key the key
   * @return a future completed with a copy of the value once published
   */
  public CompletableFuture<byte[]> get(String key) {
    byte[] v = kv.get(key);
    if (v != null) {
      return CompletableFuture.completedFuture(v.clone());
    }
    synchronized (this) {
      v = kv.get(key); // published meanwhile
      if (v != null) {
        return CompletableFuture.completedFuture(v.clone());
      }
      CompletableFuture<byte[]> f = new CompletableFuture<>();
      kvWaiters.computeIfAbsent(key, k -> new ArrayList<>()).add(f);
      return f;
    }
  }

  /**
   * Forgets a waiter that gave up.
   *
   * @param key the key
   * @param f its future
   */
  public synchronized void cancelGet(String key, CompletableFuture<byte[]> f) {
    List<CompletableFuture<byte[]>> l = kvWaiters.get(key);
    if (l != null) {
      l.remove(f);
    }
  }

  /**
   * Enters a barrier.
   *
   * @param name the barrier
   * @param rank the rank entering
   * @return a future completed when all ranks have entered
   */
  public CompletableFuture<Void> barrier(String name, int rank) {
    CompletableFuture<Void> f;
    boolean complete;
    synchronized (this) {
      f = barriers.computeIfAbsent(name, k -> new CompletableFuture<>());
      TreeSet<Integer> s = entered.computeIfAbsent(name, k -> new TreeSet<>());
      s.add(rank);
      complete = s.size() >= size;
    }
    if (complete) {
      f.complete(null);
    }
    return f;
  }

  /**
   * Reports for one round of modelled-time steps. Every rank reports once per round; the round
   * completes when all have, and the next opens. Only one round is open at a time, so the state
   * does not grow however long the job runs.
   *
   * @param round the round the rank reports for (0, 1, ...)
   * @param rank the rank
   * @param report its report
   * @return a future completed with the round's sum once every rank has reported
   * @throws IllegalArgumentException naming the round or rank if it is not the open round, or the
   *     rank reported twice
   */
  public CompletableFuture<StepResult> step(long round, int rank, StepReport report) {
    CompletableFuture<StepResult> f;
    StepResult done = null;
    synchronized (this) {
      if (round != stepRound) {
        throw new IllegalArgumentException("step round=" + round + " from rank " + rank + ": the open round is " + stepRound);
      }
      if (rank < 0 || rank >= size || stepRanks.get(rank)) {
        throw new IllegalArgumentException("step round=" + round + ": rank=" + rank + " is not a rank that has still to report");
      }
      stepRanks.set(rank);
      stepSum = stepSum.plus(report);
      f = stepDone;
      if (stepRanks.cardinality() >= size) {
        done = stepSum;
        stepRound++;
        stepRanks.clear();
        stepSum = StepResult.EMPTY;
        stepDone = new CompletableFuture<>();
      }
    }
    if (done != null) {
      f.complete(done);
    }
    return f;
  }

  /**
   * @param name a barrier
   * @return the ranks that have not entered it
   */
  public synchronized List<Integer> missing(String name) {
    TreeSet<Integer> s = entered.getOrDefault(name, new TreeSet<>());
    List<Integer> m = new ArrayList<>();
    for (int r = 0; r < size; r++) {
      if (!s.contains(r)) {
        m.add(r);
      }
    }
    return m;
  }
}

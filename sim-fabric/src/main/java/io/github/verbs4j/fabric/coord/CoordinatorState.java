package io.github.verbs4j.fabric.coord;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;

/**
 * The coordinator's key-value store and barriers, shared by the socket server and the in-JVM
 * fabric. The pairs live in one shard ({@link KvsPlacement#ROOT}) or, in the in-JVM fabric with
 * {@link KvsPlacement#HASHED}, in one shard per rank. Futures are completed outside the lock.
 * Thread-safe.
 *
 * <p>A published value is read without the lock: in one JVM a thousand ranks each look up every
 * other rank's address (a million gets), and on a crowded host a thread preempted while holding
 * the monitor held up hundreds of others. Only a get that has to wait, and every put, take the
 * lock, so a waiter cannot miss the put that completes it.
 */
public final class CoordinatorState {
  private int size;
  private final KvsPlacement placement;
  /** {@link KvsPlacement#ROOT}: every pair; else null. */
  private final KvsShard root;
  /** {@link KvsPlacement#HASHED}: one shard per rank (the in-JVM fabric's members); else null. */
  private volatile KvsShard[] shards;
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

  /** @param size the number of ranks a barrier waits for; every pair at the coordinator */
  public CoordinatorState(int size) {
    this(size, KvsPlacement.ROOT);
  }

  /**
   * @param size the number of ranks a barrier waits for
   * @param placement where the pairs live: with {@link KvsPlacement#HASHED} a shard per rank, each
   *     holding the keys that hash to it (the in-JVM fabric's members; the socket server relays
   *     instead and builds this with ROOT)
   */
  public CoordinatorState(int size, KvsPlacement placement) {
    this.size = size;
    this.placement = placement;
    this.root = placement == KvsPlacement.ROOT ? new KvsShard() : null;
    if (root == null) {
      reshard(size);
    }
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
      if (root == null) {
        reshard(newSize);
      }
      for (Map.Entry<String, TreeSet<Integer>> e : entered.entrySet()) {
        if (e.getValue().size() >= size) {
          done.add(barriers.get(e.getKey()));
        }
      }
    }
    done.forEach(f -> f.complete(null));
  }

  /**
   * Publishes a value (write-once) at its holder.
   *
   * @param key the key
   * @param value the value
   * @throws IllegalArgumentException naming the key if it holds another value
   */
  public void put(String key, byte[] value) {
    byte[] v = value.clone();
    List<CompletableFuture<byte[]>> waiters;
    synchronized (this) {
      waiters = shard(key).put(key, v);
    }
    KvsShard.complete(waiters, v);
  }

  /**
   * @param key the key
   * @return a future completed with a copy of the value once published
   */
  public CompletableFuture<byte[]> get(String key) {
    byte[] v = shard(key).peek(key); // a shard of an old size at worst: a miss, then the lock
    if (v != null) {
      return CompletableFuture.completedFuture(v.clone());
    }
    synchronized (this) {
      return shard(key).get(key);
    }
  }

  /**
   * Forgets a waiter that gave up.
   *
   * @param key the key
   * @param f its future
   */
  public synchronized void cancelGet(String key, CompletableFuture<byte[]> f) {
    shard(key).cancel(key, f);
  }

  /** @return where the pairs live */
  public KvsPlacement placement() {
    return placement;
  }

  /**
   * @param rank a rank
   * @return the bytes of the pairs that rank holds ({@link KvsPlacement#entryBytes} each; 0 with
   *     {@link KvsPlacement#ROOT})
   */
  public long kvsBytes(int rank) {
    KvsShard s = memberShard(rank);
    return s == null ? 0 : s.bytes();
  }

  /**
   * @param rank a rank
   * @return the pairs that rank holds (0 with {@link KvsPlacement#ROOT})
   */
  public int kvsPairs(int rank) {
    KvsShard s = memberShard(rank);
    return s == null ? 0 : s.pairs();
  }

  /** @return the bytes of the pairs the coordinator itself holds (every pair with root, none with hashed) */
  public long rootKvsBytes() {
    return root == null ? 0 : root.bytes();
  }

  /** @return the pairs the coordinator itself holds */
  public int rootKvsPairs() {
    return root == null ? 0 : root.pairs();
  }

  private KvsShard memberShard(int rank) {
    KvsShard[] a = shards;
    return a != null && rank >= 0 && rank < a.length ? a[rank] : null;
  }

  /** The shard that holds {@code key} at the current size; racy reads see an old array at worst. */
  private KvsShard shard(String key) {
    if (root != null) {
      return root;
    }
    KvsShard[] a = shards;
    return a[KvsPlacement.holder(key, a.length)];
  }

  /** Hashed: one shard per rank; pairs and waiting gets move to their new holders. Holds the lock. */
  private void reshard(int newSize) {
    KvsShard[] old = shards;
    int n = Math.max(1, newSize);
    if (old != null && old.length == n) {
      return;
    }
    KvsShard[] next = new KvsShard[n];
    for (int r = 0; r < n; r++) {
      next[r] = new KvsShard();
    }
    if (old != null) {
      for (KvsShard s : old) {
        s.drain((k, v, w) -> next[KvsPlacement.holder(k, n)].adopt(k, v, w));
      }
    }
    shards = next;
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

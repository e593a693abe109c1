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

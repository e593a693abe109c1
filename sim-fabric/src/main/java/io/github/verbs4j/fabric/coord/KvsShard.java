package io.github.verbs4j.fabric.coord;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One holder's write-once pairs and the gets waiting for them: the coordinator's only one ({@link
 * KvsPlacement#ROOT}), or a member's ({@link KvsPlacement#HASHED}). Each pair is counted at its own
 * size ({@link KvsPlacement#entryBytes}). Thread-safe; a stored value is read without the lock.
 * Callers complete the waiters a put returns outside any lock of theirs.
 */
final class KvsShard {
  private final Map<String, byte[]> kv = new ConcurrentHashMap<>();
  private final Map<String, List<CompletableFuture<byte[]>>> waiters = new HashMap<>();
  private long bytes; // guarded by this

  /** A pair and the gets that waited for it, as {@link #drain} hands them over. */
  interface Sink {
    void accept(String key, byte[] value, List<CompletableFuture<byte[]>> waiting);
  }

  /**
   * @param key a key
   * @return its stored value (not a copy: do not modify), or null
   */
  byte[] peek(String key) {
    return kv.get(key);
  }

  /**
   * Stores a value (write-once).
   *
   * @param key the key
   * @param value the value, owned by the shard from now on
   * @return the gets that waited for the key (complete each with a copy), or null
   * @throws IllegalArgumentException naming the key if it holds another value
   */
  synchronized List<CompletableFuture<byte[]>> put(String key, byte[] value) {
    byte[] old = kv.get(key);
    if (old != null) {
      if (!Arrays.equals(old, value)) {
        throw new IllegalArgumentException("key '" + key + "' already holds another value (" + old.length
            + " bytes); keys are write-once");
      }
      return null;
    }
    kv.put(key, value);
    bytes += KvsPlacement.entryBytes(key, value.length);
    return waiters.remove(key);
  }

  /**
   * @param key the key
   * @return a future completed with a copy of the value once stored
   */
  synchronized CompletableFuture<byte[]> get(String key) {
    byte[] v = kv.get(key);
    if (v != null) {
      return CompletableFuture.completedFuture(v.clone());
    }
    CompletableFuture<byte[]> f = new CompletableFuture<>();
    waiters.computeIfAbsent(key, k -> new ArrayList<>(1)).add(f);
    return f;
  }

  /**
   * Forgets a get that gave up.
   *
   * @param key the key
   * @param f its future
   */
  synchronized void cancel(String key, CompletableFuture<byte[]> f) {
    List<CompletableFuture<byte[]>> l = waiters.get(key);
    if (l != null && l.remove(f) && l.isEmpty()) {
      waiters.remove(key);
    }
  }

  /**
   * Hands every pair and waiting get to {@code sink} and empties the shard (the in-JVM fabric moves
   * them when its size, and so every key's holder, changes).
   *
   * @param sink where they go
   */
  synchronized void drain(Sink sink) {
    for (Map.Entry<String, byte[]> e : kv.entrySet()) {
      sink.accept(e.getKey(), e.getValue(), List.of());
    }
    waiters.forEach((k, l) -> sink.accept(k, null, l));
    kv.clear();
    waiters.clear();
    bytes = 0;
  }

  /**
   * Takes a pair or the gets waiting for a key from another shard's {@link #drain}.
   *
   * @param key the key
   * @param value its value, or null for waiting gets only
   * @param waiting gets waiting for it
   */
  synchronized void adopt(String key, byte[] value, List<CompletableFuture<byte[]>> waiting) {
    if (value != null) {
      kv.put(key, value);
      bytes += KvsPlacement.entryBytes(key, value.length);
    }
    if (!waiting.isEmpty()) {
      waiters.computeIfAbsent(key, k -> new ArrayList<>(1)).addAll(waiting);
    }
  }

  /** @return the bytes of the pairs held ({@link KvsPlacement#entryBytes} each) */
  synchronized long bytes() {
    return bytes;
  }

  /** @return the pairs held */
  int pairs() {
    return kv.size();
  }

  /**
   * Completes gets with copies of a value.
   *
   * @param waiting the gets a {@link #put} returned, or null
   * @param value the value
   */
  static void complete(List<CompletableFuture<byte[]>> waiting, byte[] value) {
    if (waiting != null) {
      waiting.forEach(f -> f.complete(value.clone()));
    }
  }
}

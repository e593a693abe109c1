package io.github.verbs4j.tca.peach2;

import java.time.Duration;

/**
 * The board's out-of-band management path: PEACH2 carries a Nios II management processor reached
 * over Gigabit Ethernet for route programming and host communication (seed 001 §3.3). verbs4j
 * uses it for what a job needs before the first transfer — rank, size, a key-value store and
 * barriers (the fabric coordinator underneath). It never carries verbs data: every byte of a
 * verbs operation crosses nodes as a PEACH2 memory write.
 */
public interface ManagementPort {
  /** @return this node's rank, 0-based */
  int rank();

  /** @return the job size */
  int size();

  /**
   * @param key a key (write-once)
   * @param value its value
   */
  void put(String key, byte[] value);

  /**
   * @param key a key
   * @param timeout how long to wait for it
   * @return its value
   */
  byte[] get(String key, Duration timeout);

  /**
   * @param name barrier name
   * @param timeout how long to wait
   */
  void barrier(String name, Duration timeout);
}

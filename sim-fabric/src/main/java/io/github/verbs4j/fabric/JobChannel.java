package io.github.verbs4j.fabric;

import java.time.Duration;

/**
 * The job's out-of-band exchange that every node offers ({@link FabricNode#job()}): a write-once
 * key-value store and named barriers, kept by the coordinator — the PMI role, what ranks use to
 * swap queue-pair numbers and addresses before the first frame. It carries no data-path traffic.
 *
 * <pre>{@code
 * JobChannel job = node.job();
 * job.kvPut("qpn/" + node.rank(), Ints.toByteArray(qp.qpNum()));
 * int peerQpn = Ints.fromByteArray(job.kvGet("qpn/" + peer, Duration.ofSeconds(30)));
 * job.barrier("connected", Duration.ofSeconds(30));
 * }</pre>
 *
 * <p>Threading: any thread but the node's fabric thread ({@link #kvGet} and {@link #barrier} block
 * up to their timeout). After the node is closed every call throws {@link FabricException}.
 */
public interface JobChannel {
  /**
   * Publishes a value. Keys are write-once: publishing the same value again is allowed, another
   * value fails.
   *
   * @param key the key
   * @param value the value (copied)
   * @throws FabricException if the key holds another value, the coordinator is unreachable or the
   *     node is closed
   */
  void kvPut(String key, byte[] value);

  /**
   * Waits until {@code key} is published and returns its value.
   *
   * @param key the key
   * @param timeout how long to wait
   * @return the value
   * @throws FabricTimeoutException naming the key and timeout if not published in time
   */
  byte[] kvGet(String key, Duration timeout);

  /**
   * Waits until every rank has entered barrier {@code name}.
   *
   * @param name the barrier (each name is used once per job)
   * @param timeout how long to wait
   * @throws FabricTimeoutException naming the barrier, the timeout and the ranks missing
   */
  void barrier(String name, Duration timeout);

  /**
   * The bytes of the job's pairs this member holds: with {@code verbs.fabric.kvs=hashed} the pairs
   * whose key hashes to its rank, each counted as key UTF-8 bytes + value bytes + {@link
   * io.github.verbs4j.fabric.coord.KvsPlacement#ENTRY_OVERHEAD}; with {@code root} 0 (the
   * coordinator holds them all: {@link #coordinatorKvs}).
   * Any thread, also after close.
   *
   * @return bytes held
   */
  long kvsBytes();

  /**
   * @return the number of pairs this member holds ({@link #kvsBytes()}); 0 with {@code root}
   */
  long kvsPairs();

  /**
   * Asks what the coordinator itself holds of the store, wherever it runs (netty: one round trip,
   * so a rank can read it when the coordinator is in the launcher's process).
   *
   * @param timeout how long to wait for the answer
   * @return every pair with {@code verbs.fabric.kvs=root}; none with {@code hashed}, and then the
   *     requests it is relaying
   * @throws FabricTimeoutException if the coordinator does not answer in time
   */
  CoordinatorKvs coordinatorKvs(Duration timeout);

  /**
   * What the coordinator holds of the store.
   *
   * @param pairs the pairs it holds
   * @param bytes their bytes, each key UTF-8 bytes + value bytes + {@link
   *     io.github.verbs4j.fabric.coord.KvsPlacement#ENTRY_OVERHEAD}
   * @param inFlight puts and gets it is relaying to their holders ({@code hashed}; 0 with {@code root})
   */
  record CoordinatorKvs(long pairs, long bytes, long inFlight) {}
}

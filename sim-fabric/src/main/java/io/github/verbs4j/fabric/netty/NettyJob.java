package io.github.verbs4j.fabric.netty;

import io.github.verbs4j.fabric.FabricException;
import io.github.verbs4j.fabric.FabricNode;
import io.github.verbs4j.fabric.JobChannel;
import io.github.verbs4j.fabric.coord.CoordinatorClient;
import java.time.Duration;

/** A netty node's {@link JobChannel}: requests to the coordinator over the node's client connection. */
final class NettyJob implements JobChannel {
  private final FabricNode node;
  private final CoordinatorClient client;
  private final Duration putTimeout;

  /**
   * @param node the node (for its open state and id)
   * @param client the node's coordinator connection
   * @param putTimeout how long a put waits for the coordinator's answer
   */
  NettyJob(FabricNode node, CoordinatorClient client, Duration putTimeout) {
    this.node = node;
    this.client = client;
    this.putTimeout = putTimeout;
  }

  private CoordinatorClient client(String what) {
    if (!node.isOpen()) {
      throw new FabricException(what + ": node " + node.nodeId() + " is closed");
    }
    return client;
  }

  @Override
  public void kvPut(String key, byte[] value) {
    client("kvPut key='" + key + "'").put(key, value, putTimeout);
  }

  @Override
  public byte[] kvGet(String key, Duration timeout) {
    return client("kvGet key='" + key + "'").get(key, timeout);
  }

  @Override
  public void barrier(String name, Duration timeout) {
    client("barrier '" + name + "'").barrier(name, timeout);
  }

  @Override
  public long kvsBytes() {
    return client.kvsBytes();
  }

  @Override
  public long kvsPairs() {
    return client.kvsPairs();
  }

  @Override
  public CoordinatorKvs coordinatorKvs(Duration timeout) {
    return client("coordinator kvs").coordinatorKvs(timeout);
  }
}

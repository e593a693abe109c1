package io.github.verbs4j.fabric.local;

import io.github.verbs4j.fabric.FabricException;
import io.github.verbs4j.fabric.FabricTimeoutException;
import io.github.verbs4j.fabric.JobChannel;
import io.github.verbs4j.fabric.coord.CoordinatorState;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A local node's {@link JobChannel}: the in-JVM fabric's coordinator state, no sockets. With {@code
 * verbs.fabric.kvs=hashed} that state keeps a shard per rank, so this node's {@link #kvsBytes} are
 * the pairs that hash to its rank.
 */
final class LocalJob implements JobChannel {
  private final LocalNode node;
  private final CoordinatorState coordinator;

  LocalJob(LocalNode node, CoordinatorState coordinator) {
    this.node = node;
    this.coordinator = coordinator;
  }

  private void checkOpen(String what) {
    if (!node.isOpen()) {
      throw new FabricException(what + ": node " + node.nodeId() + " is closed");
    }
  }

  @Override
  public void kvPut(String key, byte[] value) {
    checkOpen("kvPut key='" + key + "'");
    try {
      coordinator.put(key, value);
    } catch (IllegalArgumentException e) {
      throw new FabricException("kvPut: " + e.getMessage(), e);
    }
  }

  @Override
  public byte[] kvGet(String key, Duration timeout) {
    checkOpen("kvGet key='" + key + "'");
    CompletableFuture<byte[]> f = coordinator.get(key);
    try {
      return f.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      coordinator.cancelGet(key, f);
      throw new FabricTimeoutException("kvGet key='" + key + "' timed out after " + timeout);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new FabricException("kvGet key='" + key + "' interrupted", e);
    } catch (ExecutionException e) {
      throw new FabricException("kvGet key='" + key + "' failed", e.getCause());
    }
  }

  @Override
  public long kvsBytes() {
    return coordinator.kvsBytes(node.rank());
  }

  @Override
  public long kvsPairs() {
    return coordinator.kvsPairs(node.rank());
  }

  @Override
  public CoordinatorKvs coordinatorKvs(Duration timeout) {
    return new CoordinatorKvs(coordinator.rootKvsPairs(), coordinator.rootKvsBytes(), 0);
  }

  @Override
  public void barrier(String name, Duration timeout) {
    checkOpen("barrier '" + name + "'");
    try {
      coordinator.barrier(name, node.rank()).get(timeout.toNanos(), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      throw new FabricTimeoutException("barrier '" + name + "' timed out after " + timeout + ": ranks "
          + coordinator.missing(name) + " missing");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new FabricException("barrier '" + name + "' interrupted", e);
    } catch (ExecutionException e) {
      throw new FabricException("barrier '" + name + "' failed", e.getCause());
    }
  }
}

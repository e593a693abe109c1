package io.github.verbs4j.tca.verbs;

import io.github.verbs4j.fabric.FabricException;
import io.github.verbs4j.fabric.FabricTimeoutException;
import io.github.verbs4j.tca.peach2.ManagementPort;
import io.github.verbs4j.verbs.Errno;
import io.github.verbs4j.verbs.Job;
import io.github.verbs4j.verbs.VerbsException;
import java.time.Duration;

/**
 * {@link Job} over the board's out-of-band management path (the coordinator's key-value store and
 * barriers; not PEACH2 traffic, as a real cluster exchanges QP numbers over Ethernet). Keys and
 * barrier names are prefixed with {@code verbs.tca.job} when it is set.
 */
final class TcaJob implements Job {
  private final ManagementPort port;
  private final String prefix;

  TcaJob(ManagementPort port, String namespace) {
    this.port = port;
    this.prefix = namespace.isEmpty() ? "" : namespace + "/";
  }

  @Override
  public int rank() {
    return port.rank();
  }

  @Override
  public int size() {
    return port.size();
  }

  @Override
  public void put(String key, byte[] value) {
    try {
      port.put(prefix + key, value);
    } catch (FabricException e) {
      throw new VerbsException(Errno.EINVAL, "job put key='" + key + "': " + e.getMessage(), -1, e);
    }
  }

  @Override
  public byte[] get(String key, Duration timeout) {
    try {
      return port.get(prefix + key, timeout);
    } catch (FabricTimeoutException e) {
      throw new VerbsException(Errno.ETIMEDOUT, "job get key='" + key + "' timed out after " + timeout, -1, e);
    } catch (FabricException e) {
      throw new VerbsException(Errno.EIO, "job get key='" + key + "': " + e.getMessage(), -1, e);
    }
  }

  @Override
  public void barrier(String name, Duration timeout) {
    try {
      port.barrier(prefix + name, timeout);
    } catch (FabricTimeoutException e) {
      throw new VerbsException(Errno.ETIMEDOUT, "job barrier '" + name + "': " + e.getMessage(), -1, e);
    } catch (FabricException e) {
      throw new VerbsException(Errno.EIO, "job barrier '" + name + "': " + e.getMessage(), -1, e);
    }
  }
}

package io.github.verbs4j.fabric.netty;

import io.github.verbs4j.fabric.Fabric;
import io.github.verbs4j.fabric.FabricException;
import io.github.verbs4j.fabric.FabricNode;
import io.github.verbs4j.fabric.FabricOptions;
import io.github.verbs4j.fabric.JobChannel;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A rank of {@link HashedKvsIT}: joins through {@code -Dverbs.*}, puts {@link #PER_RANK} keys, gets
 * every rank's, checks them byte for byte, tries another value for one of its keys, and (rank 0)
 * waits for a key rank 1 puts later. Prints {@code HELD <pairs> <bytes>} (its own), {@code
 * COORDINATOR <pairs> <bytes>} (asked of the coordinator), {@code WRITE-ONCE <message>} and {@code OK}, then exits 0; anything else prints {@code FAILED <message>} and exits 3.
 */
public final class KvsChildMain {
  /** Keys each rank puts. */
  static final int PER_RANK = 10;
  private static final Duration T = Duration.ofSeconds(60);

  private KvsChildMain() {}

  static String key(int rank, int i) {
    return "addr/" + rank + "/" + i;
  }

  static byte[] value(int rank, int i) {
    byte[] v = new byte[1 + (rank * 7 + i * 13) % 61];
    for (int j = 0; j < v.length; j++) {
      v[j] = (byte) (rank * 31 + i * 17 + j);
    }
    return v;
  }

  /**
   * @param args none
   */
  public static void main(String[] args) {
    Map<String, String> settings = new HashMap<>();
    System.getProperties().forEach((k, v) -> {
      if (k.toString().startsWith("verbs.")) {
        settings.put(k.toString(), v.toString());
      }
    });
    try (FabricNode node = Fabric.open(FabricOptions.from(settings, System.getenv()), new SimpleMeterRegistry())) {
      JobChannel job = node.job();
      int rank = node.rank();
      CompletableFuture<byte[]> late = null;
      if (rank == 0) {
        late = CompletableFuture.supplyAsync(() -> job.kvGet("late", T), r -> new Thread(r).start());
        Thread.sleep(200);
      }
      job.barrier("waiting", T);
      if (rank == 1) {
        job.kvPut("late", "after the get".getBytes(StandardCharsets.UTF_8));
      }
      for (int i = 0; i < PER_RANK; i++) {
        job.kvPut(key(rank, i), value(rank, i));
      }
      for (int r = 0; r < node.size(); r++) {
        for (int i = 0; i < PER_RANK; i++) {
          byte[] got = job.kvGet(key(r, i), T);
          if (!Arrays.equals(value(r, i), got)) {
            throw new IllegalStateException(key(r, i) + " came back as " + Arrays.toString(got));
          }
        }
      }
      if (late != null && !"after the get".equals(new String(late.get(60, TimeUnit.SECONDS), StandardCharsets.UTF_8))) {
        throw new IllegalStateException("the waiting get returned another value");
      }
      try {
        job.kvPut(key(rank, 0), new byte[] {-1});
        throw new IllegalStateException("another value for " + key(rank, 0) + " was accepted");
      } catch (FabricException e) {
        System.out.println("WRITE-ONCE " + e.getMessage());
      }
      job.barrier("done", T); // every rank has read every key before any holder leaves
      System.out.println("HELD " + job.kvsPairs() + " " + job.kvsBytes());
      JobChannel.CoordinatorKvs c = job.coordinatorKvs(T);
      System.out.println("COORDINATOR " + c.pairs() + " " + c.bytes());
      System.out.println("OK");
      System.out.flush();
    } catch (Exception e) {
      System.out.println("FAILED " + e);
      System.out.flush();
      System.exit(3);
    }
    System.exit(0);
  }
}

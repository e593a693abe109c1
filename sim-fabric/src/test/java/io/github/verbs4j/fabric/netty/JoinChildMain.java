package io.github.verbs4j.fabric.netty;

import io.github.verbs4j.fabric.Fabric;
import io.github.verbs4j.fabric.FabricNode;
import io.github.verbs4j.fabric.FabricOptions;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * A rank of {@link JobAuthIT}: joins through {@code -Dverbs.*}, publishes {@code joined/<rank>},
 * waits for the barrier "done" and exits 0; prints {@code JOIN FAILED: <message>} and exits 3 if
 * it cannot join.
 */
public final class JoinChildMain {
  private JoinChildMain() {}

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
    FabricOptions o = FabricOptions.from(settings, System.getenv());
    FabricNode node;
    try {
      node = Fabric.open(o, new SimpleMeterRegistry());
    } catch (RuntimeException e) {
      System.out.println("JOIN FAILED: " + e.getMessage());
      System.out.flush();
      System.exit(3);
      return;
    }
    try (node) {
      node.job().kvPut("joined/" + node.rank(), "yes".getBytes(StandardCharsets.UTF_8));
      node.job().barrier("done", Duration.ofSeconds(120));
    }
    System.out.println("JOINED AND LEFT");
    System.exit(0);
  }
}

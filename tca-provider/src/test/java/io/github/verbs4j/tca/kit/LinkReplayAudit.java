package io.github.verbs4j.tca.kit;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Metrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.DoubleAdder;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Beside the kit's lossy-link scenario (which reads nothing provider-specific): a registry joins
 * the global one the kit's contexts report to and adds up the final values of the boards' data link
 * layer counters ({@code verbs4j.tca.peach2.link.*}) as each context closes. After the kit class,
 * the boards of this JVM must have replayed frames, caught LCRC errors, discarded duplicates and
 * sent Naks: the faults reached the links, and the link layer, not TCA Verbs, recovered from them.
 */
public final class LinkReplayAudit implements BeforeAllCallback, AfterAllCallback {
  private static final String[] COUNTED = {"replays", "lcrc.errors", "duplicates", "naks.sent"};
  private static final Map<String, DoubleAdder> TOTALS = new ConcurrentHashMap<>();
  private static final SimpleMeterRegistry AUDIT = new SimpleMeterRegistry();

  static {
    AUDIT.config().onMeterRemoved(LinkReplayAudit::removed);
  }

  private static void removed(Meter m) {
    String name = m.getId().getName();
    if (m instanceof FunctionCounter c && name.startsWith("verbs4j.tca.peach2.link.")) {
      TOTALS.computeIfAbsent(name.substring("verbs4j.tca.peach2.link.".length()), k -> new DoubleAdder()).add(c.count());
    }
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    TOTALS.clear();
    if (!Metrics.globalRegistry.getRegistries().contains(AUDIT)) {
      Metrics.addRegistry(AUDIT);
    }
  }

  @Override
  public void afterAll(ExtensionContext context) {
    System.out.printf("PEACH2 link layer after %s: %s%n", context.getDisplayName(), TOTALS);
    for (String c : COUNTED) {
      DoubleAdder v = TOTALS.get(c);
      assertTrue(v != null && v.sum() > 0, "verbs4j.tca.peach2.link." + c + " stayed 0: " + TOTALS);
    }
  }
}

package io.github.verbs4j.tca.kit;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Metrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.concurrent.atomic.DoubleAdder;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The honesty audit over a run of the conformance kit (issue: "the bytes that crossed nodes equal
 * the bytes the PEACH2 model moved"): a registry joins the global one the kit's contexts report to,
 * and when a context closes and its meters are removed, the final values of the boards' frame
 * counters ({@code verbs4j.tca.peach2.frames.sent}, {@code frame.bytes.sent}) and of the fabric's
 * ({@code verbs4j.fabric.frames.sent}, {@code bytes.sent}) are added up. After each kit class the
 * totals must be equal: every frame and byte the fabric carried was a PEACH2 write. Contexts
 * closed while no audited class runs (a class that injects faults, whose dropped frames only the
 * boards count) are not added.
 */
public final class Peach2OnlyAudit implements BeforeAllCallback, AfterAllCallback {
  private static final DoubleAdder BOARD_FRAMES = new DoubleAdder();
  private static final DoubleAdder BOARD_BYTES = new DoubleAdder();
  private static final DoubleAdder FABRIC_FRAMES = new DoubleAdder();
  private static final DoubleAdder FABRIC_BYTES = new DoubleAdder();
  private static final SimpleMeterRegistry AUDIT = new SimpleMeterRegistry();
  /** Counting only while an audited class runs: other classes (fault injection) share the JVM. */
  private static volatile boolean active;

  static {
    AUDIT.config().onMeterRemoved(Peach2OnlyAudit::removed);
  }

  private static void removed(Meter m) {
    if (!active || !(m instanceof FunctionCounter c)) {
      return;
    }
    switch (m.getId().getName()) {
      case "verbs4j.tca.peach2.frames.sent" -> BOARD_FRAMES.add(c.count());
      case "verbs4j.tca.peach2.frame.bytes.sent" -> BOARD_BYTES.add(c.count());
      case "verbs4j.fabric.frames.sent" -> FABRIC_FRAMES.add(c.count());
      case "verbs4j.fabric.bytes.sent" -> FABRIC_BYTES.add(c.count());
      default -> {
        // not audited
      }
    }
  }

  /** @return frames the boards sent so far (closed contexts) */
  static double boardFrames() {
    return BOARD_FRAMES.sum();
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    if (!Metrics.globalRegistry.getRegistries().contains(AUDIT)) {
      Metrics.addRegistry(AUDIT);
    }
    active = true;
  }

  @Override
  public void afterAll(ExtensionContext context) {
    active = false;
    System.out.printf("PEACH2 audit after %s: %.0f frames / %.0f bytes by the boards, %.0f / %.0f on the fabric%n",
        context.getDisplayName(), BOARD_FRAMES.sum(), BOARD_BYTES.sum(), FABRIC_FRAMES.sum(), FABRIC_BYTES.sum());
    assertEquals(FABRIC_FRAMES.sum(), BOARD_FRAMES.sum(), "frames on the fabric vs PEACH2 write frames");
    assertEquals(FABRIC_BYTES.sum(), BOARD_BYTES.sum(), "bytes on the fabric vs PEACH2 write frame bytes");
  }
}

package io.github.verbs4j.examples.perftest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class DeviceCountersTest {
  private static AtomicLong counter(SimpleMeterRegistry r, String name, String node, String... tags) {
    AtomicLong v = new AtomicLong();
    FunctionCounter.builder(name, v, AtomicLong::get).tag("node", node).tags(tags).register(r);
    return v;
  }

  @Test
  void rowsGiveEachCounterIncreasePerOperationForTheDevicesNodeOnly() {
    SimpleMeterRegistry r = new SimpleMeterRegistry();
    AtomicLong pio = counter(r, "verbs4j.tca.peach2.transfers", "3", "kind", "pio");
    AtomicLong host = counter(r, "verbs4j.tca.peach2.transfers", "3", "kind", "dma_host");
    AtomicLong remote = counter(r, "verbs4j.tca.peach2.bytes", "3", "kind", "dma_host", "scope", "remote");
    counter(r, "verbs4j.tca.peach2.bytes", "3", "kind", "dma_host", "scope", "local").set(999);
    AtomicLong other = counter(r, "verbs4j.tca.peach2.transfers", "4", "kind", "pio");
    DeviceCounters d = DeviceCounters.of(r, 3);
    double[] before = d.read();
    pio.addAndGet(200);
    host.addAndGet(100);
    remote.addAndGet(409_600);
    other.addAndGet(5_000);
    String row = DeviceCounters.row(4096, before, d.read(), 100);
    String[] cells = row.trim().split("\\s+");
    assertEquals("4096", cells[0]);
    assertEquals("2.00", cells[1], row); // pio
    assertEquals("0.00", cells[2], row); // dma.int
    assertEquals("1.00", cells[3], row); // dma.host
    assertEquals("4096.00", cells[5], row); // remote bytes, local ones left out
    assertTrue(DeviceCounters.header().contains("remote.B"));
  }

  @Test
  void aDeviceWithoutTheseMetersHasNoTable() {
    SimpleMeterRegistry r = new SimpleMeterRegistry();
    counter(r, "verbs4j.ib.packets.sent", "1");
    assertNull(DeviceCounters.of(r, 1));
  }
}

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
    assertTrue(d.header().contains("remote.B"));
  }

  @Test
  void anIbDeviceCountsItsPacketsAndAcksByLidAndTheProcessFabricFrames() {
    SimpleMeterRegistry r = new SimpleMeterRegistry();
    AtomicLong packets = ibCounter(r, "verbs4j.ib.packets", "2", "direction", "sent");
    ibCounter(r, "verbs4j.ib.packets", "2", "direction", "received").set(777);
    AtomicLong bundled = ibCounter(r, "verbs4j.ib.acks", "2", "kind", "bundled");
    AtomicLong otherDevice = ibCounter(r, "verbs4j.ib.packets", "5", "direction", "sent");
    AtomicLong frames = new AtomicLong();
    FunctionCounter.builder("verbs4j.fabric.frames.sent", frames, AtomicLong::get).tag("fabric", "netty-rank-0-2")
        .register(r);
    DeviceCounters d = DeviceCounters.of(r, 2);
    double[] before = d.read();
    packets.addAndGet(300);
    bundled.addAndGet(100);
    otherDevice.addAndGet(9_000);
    frames.addAndGet(200);
    String[] cells = DeviceCounters.row(8, before, d.read(), 100).trim().split("\\s+");
    String[] header = d.header().trim().split("\\s+");
    assertEquals("packets", header[1]);
    assertEquals("3.00", cells[1]);
    assertEquals("ack.bndl", header[3]);
    assertEquals("1.00", cells[3]);
    assertEquals("frames", header[6]);
    assertEquals("2.00", cells[6]);
    assertEquals("takeover", header[7]);
    assertEquals("missed", header[8]);
  }

  private static AtomicLong ibCounter(SimpleMeterRegistry r, String name, String lid, String... tags) {
    AtomicLong v = new AtomicLong();
    FunctionCounter.builder(name, v, AtomicLong::get).tag("lid", lid).tags(tags).register(r);
    return v;
  }

  @Test
  void aDeviceWithoutTheseMetersHasNoTable() {
    SimpleMeterRegistry r = new SimpleMeterRegistry();
    counter(r, "verbs4j.other.packets.sent", "1");
    assertNull(DeviceCounters.of(r, 1));
  }
}

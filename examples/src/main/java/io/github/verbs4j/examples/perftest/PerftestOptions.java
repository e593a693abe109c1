package io.github.verbs4j.examples.perftest;

import io.github.verbs4j.examples.common.DurationConverter;
import java.nio.file.Path;
import java.time.Duration;
import picocli.CommandLine.Option;

/**
 * The options every perftest program shares, with perftest's names. A field left null takes the
 * program's perftest default ({@link PerftestProgram}); the defaults are listed in each help text.
 */
public final class PerftestOptions {
  /** The largest size of {@code -a}: 2^23 bytes ({@code MAX_SIZE}). */
  public static final long MAX_SIZE = 1L << 23;

  @Option(names = {"-s", "--size"}, paramLabel = "BYTES",
      description = "Size of message to exchange (default: 2 for *_lat, 65536 for *_bw, 8 for atomic_lat, which "
          + "cannot be changed).")
  Long size;

  @Option(names = {"-a", "--all"}, description = "Run sizes from 2 till 2^23 (not for atomic_lat).")
  boolean all;

  @Option(names = "--max-size", paramLabel = "BYTES",
      description = "verbs4j: the largest size of -a (a power of two, 2..8388608; default: 8388608).")
  Long maxSize;

  @Option(names = {"-n", "--iters"}, paramLabel = "N",
      description = "Number of exchanges, at least 5 (default: 1000; write_bw: 5000).")
  Integer iters;

  @Option(names = {"-t", "--tx-depth"}, paramLabel = "N", description = "Size of tx queue (default: 1 for *_lat, "
      + "128 for *_bw).")
  Integer txDepth;

  @Option(names = {"-r", "--rx-depth"}, paramLabel = "N", description = "Rx queue size for SEND tests (default: 512).")
  Integer rxDepth;

  @Option(names = {"-Q", "--cq-mod"}, paramLabel = "N",
      description = "Generate a CQ event every N requests (default: 100, at most --tx-depth for *_bw).")
  Integer cqMod;

  @Option(names = {"-I", "--inline_size"}, paramLabel = "BYTES",
      description = "Max size of message to be sent inline (default: 236 for SEND, 220 for WRITE, "
          + "limited by the device; not for READ and atomics).")
  Integer inlineSize;

  @Option(names = {"-m", "--mtu"}, paramLabel = "BYTES",
      description = "MTU: 256, 512, 1024, 2048 or 4096 (default: the smaller active MTU of the two ports).")
  Integer mtu;

  @Option(names = {"-o", "--outs"}, paramLabel = "N",
      description = "Number of outstanding READ/atomic requests (default: the device limit, at most 16).")
  Integer outReads;

  @Option(names = "--write_with_imm",
      description = "write_lat: RDMA WRITE with immediate; each side takes the peer's write from its receive CQ "
          + "instead of polling the last byte (perftest's --write_with_imm).")
  boolean writeWithImm;

  @Option(names = "--report_gbits", description = "Report bandwidth in Gb/sec instead of MiB/sec.")
  boolean reportGbits;

  @Option(names = "--csv", paramLabel = "FILE", description = "verbs4j: append the results to this CSV file.")
  Path csv;

  @Option(names = "--plot", paramLabel = "FILE.png", description = "verbs4j: write a PNG chart (log-log) of the "
      + "results, with every series of the --csv file when one is given.")
  Path plot;

  @Option(names = "--label", paramLabel = "TEXT",
      description = "verbs4j: the series name in CSV and chart (default: the provider).")
  String label;

  @Option(names = "--use-device-memory",
      description = "Put the buffers in device (GPU) memory, as perftest's --use_cuda (the device needs the "
          + "DEVICE_MEMORY capability: tca's PEACH2 GPU path).")
  boolean useDeviceMemory;

  @Option(names = "--wait-timeout", paramLabel = "DURATION", defaultValue = "60s",
      converter = DurationConverter.class,
      description = "verbs4j: longest wait for one completion or for the peer (default: ${DEFAULT-VALUE}).")
  Duration waitTimeout;

  /** @return the CSV file, or null */
  public Path csv() {
    return csv;
  }

  /** @return the PNG file, or null */
  public Path plot() {
    return plot;
  }
}

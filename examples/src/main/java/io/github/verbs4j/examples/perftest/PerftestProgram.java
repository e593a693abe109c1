package io.github.verbs4j.examples.perftest;

import io.github.verbs4j.examples.common.JobChannel;
import io.github.verbs4j.examples.common.ValidatesOptions;
import io.github.verbs4j.verbs.MemoryKind;
import io.github.verbs4j.verbs.AtomicCap;
import io.github.verbs4j.verbs.Context;
import io.github.verbs4j.verbs.DeviceAttr;
import io.github.verbs4j.verbs.Job;
import io.github.verbs4j.verbs.PortAttr;
import io.github.verbs4j.verbs.QpCap;
import io.github.verbs4j.verbs.Verbs;
import io.github.verbs4j.verbs.config.VerbsConfig;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * What every perftest program does around its measuring loop: check the options, open the
 * configured device, connect one RC QP between rank 0 (perftest's client, which measures and
 * prints) and rank 1 (the server), then for each size prepare, meet at a barrier, measure, meet
 * again, and print a row. At the end: the modelled-time table when {@code verbs.time=modelled},
 * the CSV rows and the chart.
 *
 * <p>A subclass names its verb and test kind and implements {@link #prepare} and {@link #measure}
 * for both sides.
 */
public abstract class PerftestProgram implements Callable<Integer>, ValidatesOptions {
  private static final int[] MTUS = {256, 512, 1024, 2048, 4096};
  private static final int DEFAULT_OUT_READS_CAP = 16;

  @Spec
  CommandSpec spec;

  @Mixin
  PerftestOptions opt = new PerftestOptions();

  private PrintStream out = System.out;
  private PrintStream err = System.err;
  private String channelTag = "";

  /** @return the operation measured */
  protected abstract Verb verb();

  /** @return whether this is a bandwidth test (else latency) */
  protected abstract boolean bandwidth();

  /** @return perftest's default iteration count for this program */
  /** @return whether the program has a WRITE-with-immediate variant ({@code --write_with_imm}) */
  protected boolean takesWriteWithImm() {
    return false;
  }

  protected int defaultIterations() {
    return 1000;
  }

  /** @return the default message size */
  protected long defaultSize() {
    return bandwidth() ? 65536 : 2;
  }

  /** @return the atomic type's name for the title, or null */
  protected String atomicType() {
    return null;
  }

  /**
   * Posts what must be in place before the peer starts (receive buffers), before the barrier.
   *
   * @param run the size being measured
   */
  protected void prepare(Run run) {}

  /**
   * Runs the iterations of one size on this side, stamping {@link Run#timings}.
   *
   * @param run the size being measured
   */
  protected abstract void measure(Run run);

  /** @return the program's name, e.g. {@code send_lat} */
  protected final String name() {
    return spec.name();
  }

  /**
   * Separates the job keys of several runs of this program in one job (job keys are write-once).
   *
   * @param tag appended to the key namespace, e.g. {@code /r2/s8}
   */
  final void channelTag(String tag) {
    this.channelTag = tag;
  }

  /**
   * Redirects the report (tests).
   *
   * @param out report stream
   * @param err progress stream
   */
  final void streams(PrintStream out, PrintStream err) {
    this.out = out;
    this.err = err;
  }

  @Override
  public final Integer call() {
    long[] sizes = validate();
    VerbsConfig config = VerbsConfig.load();
    DeviceCounters.keepGlobalValues();
    try (Context ctx = Verbs.open(config)) {
      run(ctx, config, sizes);
    }
    return 0;
  }

  /**
   * Checks the options against each other and perftest's limits.
   *
   * @return the sizes to measure
   * @throws ParameterException naming the offending option
   */
  final long[] validate() {
    boolean atomic = verb() == Verb.ATOMIC;
    if (opt.size != null && (opt.size < 1 || opt.size > PerftestOptions.MAX_SIZE)) {
      throw bad("--size=" + opt.size + " must be between 1 and " + PerftestOptions.MAX_SIZE);
    }
    if (atomic && opt.size != null && opt.size != 8) {
      throw bad("--size=" + opt.size + ": the size of atomic operations is always 8");
    }
    if (atomic && opt.all) {
      throw bad("--all is not available for " + name() + " (the size of atomic operations is always 8)");
    }
    if (opt.writeWithImm && !takesWriteWithImm()) {
      throw bad("--write_with_imm applies to write_lat only, not " + name());
    }
    if (opt.all && opt.size != null) {
      throw bad("--all and --size=" + opt.size + " cannot be combined");
    }
    if (opt.maxSize != null) {
      if (!opt.all) {
        throw bad("--max-size needs --all");
      }
      if (opt.maxSize < 2 || opt.maxSize > PerftestOptions.MAX_SIZE || Long.bitCount(opt.maxSize) != 1) {
        throw bad("--max-size=" + opt.maxSize + " must be a power of two between 2 and " + PerftestOptions.MAX_SIZE);
      }
    }
    if (opt.iters != null && opt.iters < LatencyStats.MIN_ITERATIONS) {
      throw bad("--iters=" + opt.iters + " must be at least " + LatencyStats.MIN_ITERATIONS);
    }
    positive("--tx-depth", opt.txDepth);
    positive("--rx-depth", opt.rxDepth);
    positive("--cq-mod", opt.cqMod);
    positive("--outs", opt.outReads);
    if (opt.inlineSize != null && opt.inlineSize < 0) {
      throw bad("--inline_size=" + opt.inlineSize + " must not be negative");
    }
    if (opt.mtu != null && java.util.Arrays.stream(MTUS).noneMatch(m -> m == opt.mtu)) {
      throw bad("--mtu=" + opt.mtu + " must be one of 256, 512, 1024, 2048, 4096");
    }
    if (opt.plot != null && !opt.plot.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".png")) {
      throw bad("--plot=" + opt.plot + " must name a .png file");
    }
    if (opt.label != null && opt.label.isBlank()) {
      throw bad("--label must not be blank");
    }
    if (opt.all) {
      long max = opt.maxSize != null ? opt.maxSize : PerftestOptions.MAX_SIZE;
      List<Long> list = new ArrayList<>();
      for (long s = 2; s <= max; s <<= 1) {
        list.add(s);
      }
      return list.stream().mapToLong(Long::longValue).toArray();
    }
    return new long[] {opt.size != null ? opt.size : defaultSize()};
  }

  @Override
  public final void validateOptions() {
    validate();
  }

  private void positive(String option, Integer value) {
    if (value != null && value < 1) {
      throw bad(option + "=" + value + " must be at least 1");
    }
  }

  private ParameterException bad(String message) {
    return new ParameterException(spec.commandLine(), message);
  }

  /** Fills in perftest's defaults and applies the device's limits. */
  final Settings settings(long[] sizes, String device, DeviceAttr dev, PortAttr port) {
    boolean bw = bandwidth();
    int iters = opt.iters != null ? opt.iters : defaultIterations();
    int txDepth = opt.txDepth != null ? opt.txDepth : bw ? 128 : 1;
    int rxDepth = opt.rxDepth != null ? opt.rxDepth : 512;
    int cqMod = opt.cqMod != null ? opt.cqMod : 100;
    if (bw) {
      cqMod = Math.min(cqMod, txDepth); // perftest: a CQ event within every window of tx_depth posts
    }
    int inline = 0;
    if (verb() == Verb.SEND || verb() == Verb.WRITE) {
      int def = verb() == Verb.SEND ? 236 : 220;
      inline = Math.min(opt.inlineSize != null ? opt.inlineSize : def, dev.maxInlineData());
    }
    int outReads = Math.max(1, Math.min(opt.outReads != null ? opt.outReads : DEFAULT_OUT_READS_CAP,
        Math.min(dev.maxQpRdAtom(), dev.maxQpInitRdAtom())));
    int mtu = opt.mtu != null ? Math.min(opt.mtu, port.activeMtu().bytes()) : port.activeMtu().bytes();
    if (verb() == Verb.ATOMIC && dev.atomicCap() == AtomicCap.NONE) {
      throw new IllegalStateException("device " + device + " does not support atomics (atomic_cap=NONE)");
    }
    int wr = Math.max(txDepth, cqMod);
    if (wr > dev.maxQpWr()) {
      throw bad("--tx-depth=" + txDepth + " (or --cq-mod=" + cqMod + ") exceeds the device's max_qp_wr="
          + dev.maxQpWr());
    }
    if ((verb() == Verb.SEND || opt.writeWithImm) && rxDepth > dev.maxQpWr()) {
      throw bad("--rx-depth=" + rxDepth + " exceeds the device's max_qp_wr=" + dev.maxQpWr());
    }
    return new Settings(sizes, iters, txDepth, rxDepth, cqMod, inline, outReads, mtu, opt.reportGbits,
        opt.writeWithImm);
  }

  /**
   * The whole run on an open context (tests call it with their own contexts).
   *
   * @param ctx the device
   * @param config the configuration (for the clock, provider and fabric names)
   * @param sizes what {@link #validate()} returned
   * @return the rows rank 0 measured (empty on other ranks)
   */
  final List<ResultRow> run(Context ctx, VerbsConfig config, long[] sizes) {
    Job job = ctx.job();
    if (job.size() != 2) {
      throw new IllegalStateException(name() + " runs on exactly 2 ranks, this job has " + job.size()
          + ": start it with ./verbs4j run -n 2 " + name());
    }
    boolean client = job.rank() == 0;
    DeviceAttr dev = ctx.queryDevice();
    Settings s = settings(sizes, ctx.device().name(), dev, ctx.queryPort(1));
    boolean modelled = "modelled".equals(config.get(VerbsConfig.TIME));
    JobChannel ch = new JobChannel(job, "perftest/" + name() + channelTag, opt.waitTimeout);
    int half = (int) Math.max(64, ((s.maxSize() + 63) / 64) * 64);
    QpCap cap = QpCap.builder().maxSendWr(Math.max(s.txDepth(), s.cqMod()))
        .maxRecvWr(verb() == Verb.SEND || s.writeWithImm() ? s.rxDepth() : 1).maxInlineData(s.inlineSize()).build();
    List<LatencyStats> latWall = new ArrayList<>();
    List<LatencyStats> latModel = new ArrayList<>();
    List<BandwidthStats> bwWall = new ArrayList<>();
    List<BandwidthStats> bwModel = new ArrayList<>();
    DeviceCounters device = client ? DeviceCounters.of(io.micrometer.core.instrument.Metrics.globalRegistry,
        ctx.queryPort(1).lid()) : null;
    List<String> deviceRows = new ArrayList<>();
    try (Endpoint ep = new Endpoint(ctx, half, cap, s.outReads(), s.mtu(), 16, opt.waitTimeout,
        opt.useDeviceMemory ? MemoryKind.DEVICE : MemoryKind.HOST)) {
      ep.connect(ch, 1 - job.rank());
      if (client) {
        out.println(PerftestReport.header(info(ctx, s)));
        out.println(PerftestReport.addressLine("local", ep.local(), verb()));
        out.println(PerftestReport.addressLine("remote", ep.remote(), verb()));
        out.println(PerftestReport.RESULT_LINE);
        out.println(bandwidth() ? PerftestReport.bwHeader(s.gbits()) : PerftestReport.LAT_HEADER);
        out.flush();
      }
      try (Progress progress = client && sizes.length > 1 ? new Progress(err, name(), sizes.length) : null) {
        for (int i = 0; i < sizes.length; i++) {
          if (progress != null) {
            progress.size(i, sizes[i]);
          }
          Timings t = new Timings(s.iterations(), bandwidth(), modelled ? ctx : null);
          Run run = new Run(ep, s, (int) sizes[i], client, t, progress, i);
          prepare(run);
          ch.barrier();
          double[] before = device != null ? device.read() : null;
          measure(run);
          ch.barrier();
          if (device != null) {
            deviceRows.add(DeviceCounters.row(sizes[i], before, device.read(), s.iterations()));
          }
          if (client) {
            if (bandwidth()) {
              BandwidthStats w = BandwidthStats.of(sizes[i], t.postedWall, t.completedWall, s.cqMod(), s.gbits());
              bwWall.add(w);
              out.println(PerftestReport.bwRow(w));
              if (modelled) {
                bwModel.add(BandwidthStats.of(sizes[i], t.postedModel, t.completedModel, s.cqMod(), s.gbits()));
              }
            } else {
              LatencyStats w = LatencyStats.of(sizes[i], t.postedWall, verb().rttFactor());
              latWall.add(w);
              out.println(PerftestReport.latRow(w));
              if (modelled) {
                latModel.add(LatencyStats.of(sizes[i], t.postedModel, verb().rttFactor()));
              }
            }
            out.flush();
          }
        }
      }
      ch.barrier();
    }
    if (!client) {
      return List.of();
    }
    out.println(PerftestReport.RESULT_LINE);
    if (modelled) {
      out.println(" Modelled time (verbs.time=modelled):");
      out.println(bandwidth() ? PerftestReport.bwHeader(s.gbits()) : PerftestReport.LAT_HEADER);
      for (BandwidthStats b : bwModel) {
        out.println(PerftestReport.bwRow(b));
      }
      for (LatencyStats l : latModel) {
        out.println(PerftestReport.latRow(l));
      }
      out.println(PerftestReport.RESULT_LINE);
    }
    if (!deviceRows.isEmpty()) {
      out.println(" Device operations per iteration (this rank, from the provider's meters):");
      out.println(device.header());
      deviceRows.forEach(out::println);
      out.println(PerftestReport.RESULT_LINE);
    }
    String provider = ctx.device().provider();
    String fabric = config.get(VerbsConfig.FABRIC);
    String label = opt.label != null ? opt.label : provider;
    List<ResultRow> rows = new ArrayList<>();
    for (LatencyStats l : latWall) {
      rows.add(new ResultRow(name(), label, provider, fabric, "wall", l, null));
    }
    for (BandwidthStats b : bwWall) {
      rows.add(new ResultRow(name(), label, provider, fabric, "wall", null, b));
    }
    for (LatencyStats l : latModel) {
      rows.add(new ResultRow(name(), label + " modelled", provider, fabric, "modelled", l, null));
    }
    for (BandwidthStats b : bwModel) {
      rows.add(new ResultRow(name(), label + " modelled", provider, fabric, "modelled", null, b));
    }
    writeOutputs(rows);
    return rows;
  }

  private void writeOutputs(List<ResultRow> rows) {
    Path csv = opt.csv();
    if (csv != null) {
      ResultCsv.append(csv, rows);
      out.println(" Results appended to " + csv);
    }
    Path png = opt.plot();
    if (png != null) {
      Charts.render(csv != null ? ResultCsv.read(csv) : rows, png);
      out.println(" Chart written to " + png);
    }
    out.flush();
  }

  private TestInfo info(Context ctx, Settings s) {
    PortAttr port = ctx.queryPort(1);
    String transport = ctx.device().transportType().name();
    String link = switch (port.linkLayer()) {
      case INFINIBAND -> "IB";
      case ETHERNET -> "Ethernet";
      default -> port.linkLayer().name();
    };
    return new TestInfo(verb(), bandwidth(), atomicType(), ctx.device().name(), transport, link, s.txDepth(),
        verb() == Verb.SEND && !bandwidth() ? s.rxDepth() : 0, s.cqMod(), 16, s.mtu(), s.inlineSize(), s.outReads(),
        "coordinator");
  }
}

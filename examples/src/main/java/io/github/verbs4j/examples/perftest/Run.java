package io.github.verbs4j.examples.perftest;

/**
 * The measurement of one size: what a program's loop needs and fills in.
 */
final class Run {
  final Endpoint ep;
  final Settings settings;
  final int size;
  final boolean client;
  final Timings timings;
  private final Progress progress;
  private final int sizeIndex;

  Run(Endpoint ep, Settings settings, int size, boolean client, Timings timings, Progress progress, int sizeIndex) {
    this.ep = ep;
    this.settings = settings;
    this.size = size;
    this.client = client;
    this.timings = timings;
    this.progress = progress;
    this.sizeIndex = sizeIndex;
  }

  /** @return {@code client} or {@code server}, as perftest names the sides in error reports */
  String side() {
    return client ? "client" : "server";
  }

  /** @param done iterations done so far (reported every 64) */
  void progress(int done) {
    if (progress != null && (done & 63) == 0) {
      progress.iteration(sizeIndex, done);
    }
  }
}

package io.github.verbs4j.examples.mp;

import java.nio.ByteBuffer;

/**
 * A pending send or receive ({@code MPI_Request}), returned by {@link Communicator#isend} and
 * {@link Communicator#irecv} and finished by {@link Communicator#wait(Request)}. A send's buffer may
 * be reused, and a receive's buffer read, once the request is done. Belongs to the communicator's
 * thread.
 */
public final class Request {
  enum Kind {
    SEND,
    RECV
  }

  final Kind kind;
  final int peer;
  final int tag;
  final int context;
  final ByteBuffer buffer;
  final int length;
  /** Rendezvous bookkeeping of the verbs implementation. */
  int id = -1;
  Object transfer;
  private boolean done;
  private Status status;
  private MpException error;

  Request(Kind kind, int peer, int tag, int context, ByteBuffer buffer, int length) {
    this.kind = kind;
    this.peer = peer;
    this.tag = tag;
    this.context = context;
    this.buffer = buffer;
    this.length = length;
  }

  /** @return whether the operation has finished (successfully or not) */
  public boolean isDone() {
    return done;
  }

  /**
   * @return the receive's status (for a send: the destination, tag and length)
   * @throws IllegalStateException if not done
   * @throws MpException if the operation failed
   */
  public Status status() {
    if (!done) {
      throw new IllegalStateException("request " + this + " is not done");
    }
    if (error != null) {
      throw error;
    }
    return status;
  }

  void complete(Status s) {
    status = s;
    done = true;
  }

  void fail(MpException e) {
    error = e;
    done = true;
  }

  boolean matches(int source, int msgTag, int msgContext) {
    return context == msgContext && (peer == Communicator.ANY_SOURCE || peer == source)
        && (tag == Communicator.ANY_TAG || tag == msgTag);
  }

  @Override
  public String toString() {
    return (kind == Kind.SEND ? "send to " : "receive from ") + (peer == Communicator.ANY_SOURCE ? "any" : peer)
        + " tag " + (tag == Communicator.ANY_TAG ? "any" : tag) + (context != 0 ? " (collective)" : "") + ", "
        + length + " bytes";
  }
}

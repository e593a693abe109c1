package io.github.verbs4j.examples.mp;

/**
 * What a completed receive got ({@code MPI_Status}): the actual source and tag (useful with {@link
 * Communicator#ANY_SOURCE} and {@link Communicator#ANY_TAG}) and the message length.
 *
 * @param source the sender's rank
 * @param tag the message's tag
 * @param length bytes received
 */
public record Status(int source, int tag, int length) {}

/**
 * Small helpers every other package may use: closing several resources in one go ({@link
 * dev.stoker.loader.util.Closer}), a pool's threads that can be joined ({@link
 * dev.stoker.loader.util.JoinedThreads}) and the known name closest to a mistyped one ({@link
 * dev.stoker.loader.util.ClosestName}). Imports nothing from the rest of Stoker.
 */
package dev.stoker.loader.util;

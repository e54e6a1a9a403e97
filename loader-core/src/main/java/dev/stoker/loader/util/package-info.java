/**
 * Small helpers every other package may use: closing several resources in one go ({@link
 * dev.stoker.loader.util.Closer}) and the known name closest to a mistyped one ({@link
 * dev.stoker.loader.util.ClosestName}). Imports nothing from the rest of Stoker.
 */
package dev.stoker.loader.util;

/**
 * The typed option every table of options is made of ({@link
 * dev.stoker.loader.option.StokerOption}: name, kind of value, rule, default and one line of
 * documentation), the strict readers of option text ({@link dev.stoker.loader.option.OptionValues}:
 * whole numbers, flags, sizes with binary units, durations with units, choices) and the map that
 * reads string options by name ignoring case ({@link dev.stoker.loader.option.OptionMap}). The
 * loader's table is {@link dev.stoker.loader.LoaderOptionTable}; the Spark connector builds its own
 * of the same options. Imports nothing of Stoker but util, so that every table may use it.
 */
package dev.stoker.loader.option;

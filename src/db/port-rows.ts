/**
 * db's side of the planners' types (src/domain/ports): where a table's row is one of them, the db
 * module states it with `type _X = Assert<Same<DrizzleRow, PlannerType>>`, which stops compiling
 * when a column is added, dropped or retyped on one side only.
 */

/** `true` when A and B are the same type (each assignable to the other), else `false`. */
export type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

/** Compiles only when given `true`. */
export type Assert<T extends true> = T;

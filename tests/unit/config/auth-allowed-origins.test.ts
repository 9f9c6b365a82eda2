/** AUTH_ALLOWED_ORIGINS (pure): parsed at boot, normalised as browsers write origins, default AUTH_URI's origin. */
import { describe, expect, test } from "bun:test";
import { authAllowedOrigins, parseAppConfig } from "../../../src/infrastructure/config/app-config.ts";

function originsOf(env: Record<string, string>) {
  const parsed = parseAppConfig(env);
  if (!parsed.ok) throw new Error(parsed.errors.join("; "));
  return authAllowedOrigins(parsed.config);
}

function errorsOf(env: Record<string, string>): readonly string[] {
  const parsed = parseAppConfig(env);
  return parsed.ok ? [] : parsed.errors;
}

describe("AUTH_ALLOWED_ORIGINS", () => {
  test("unset: the origin of AUTH_URI (its default, http://localhost:3000, when that is unset too)", () => {
    expect(originsOf({})).toEqual(["http://localhost:3000"]);
    expect(originsOf({ AUTH_URI: "https://registry.example.com/sign-in?x=1" })).toEqual(["https://registry.example.com"]);
  });

  test("a comma-separated list, normalised as a browser sends Origin (lower-case host, no default port), duplicates dropped", () => {
    expect(originsOf({ AUTH_ALLOWED_ORIGINS: "https://App.Example.com:443, http://localhost:5173 ,https://app.example.com" })).toEqual([
      "https://app.example.com",
      "http://localhost:5173",
    ]);
    expect(originsOf({ AUTH_ALLOWED_ORIGINS: "http://[::1]:8080" })).toEqual(["http://[::1]:8080"]);
  });

  test("* allows every origin, as before the setting existed", () => {
    expect(originsOf({ AUTH_ALLOWED_ORIGINS: "*" })).toBe("*");
  });

  test("anything but origins stops the boot, naming the setting and never echoing the value", () => {
    for (const value of ["https://app.example.com/path", "app.example.com", "ftp://app.example.com", "https://a.example, *", "https://a.example:70000", "https://[zz]", "https://a.example,"]) {
      const errors = errorsOf({ AUTH_ALLOWED_ORIGINS: value });
      expect({ value, named: errors.some((e) => e.startsWith("AUTH_ALLOWED_ORIGINS")) }).toEqual({ value, named: true });
      expect(errors.join("\n")).not.toContain(value);
    }
  });
});

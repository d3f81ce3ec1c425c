import { describe, expect, it } from "vitest";
import { findLink, parseLinkHeader } from "../../../src/backends/mergify/index.js";

const A = "https://api.mergify.com/v1/repos/acme/widgets/logs?cursor=abc&per_page=20";
const B = "https://api.mergify.com/v1/repos/acme/widgets/logs?cursor=def&per_page=20";

describe("parseLinkHeader", () => {
  it("reads the reference's example (multi-line, four relations)", () => {
    const header = `<${B}>; rel="next",\n  <${A}x>; rel="last",\n  <${A}>; rel="first",\n  <${A}>; rel="prev"`;
    expect(findLink(header, "next")).toBe(B);
    expect(findLink(header, "last")).toBe(`${A}x`);
    expect(findLink(header, "prev")).toBe(A);
    expect(parseLinkHeader(header)).toHaveLength(4);
  });

  it.each([
    ["no spaces", `<${A}>;rel="prev",<${B}>;rel="next"`],
    ["lots of spaces", `  < ${B} >  ;   rel = "next"  ,   <${A}> ; rel="prev"  `],
    ["unquoted rel", `<${B}>; rel=next, <${A}>; rel=prev`],
    ["reversed order", `<${A}>; rel="prev", <${B}>; rel="next"`],
    ["several rels in one value", `<${B}>; rel="next last", <${A}>; rel="first prev"`],
    ["extra params", `<${B}>; title="Next page"; rel="next"; type="application/json"`],
    ["upper-case rel", `<${B}>; REL="NEXT"`],
    ["a quoted comma and semicolon in a param", `<${A}>; title="a, b; c"; rel="prev", <${B}>; rel="next"`],
  ])("finds next with %s", (_, header) => {
    expect(findLink(header, "next")).toBe(B);
  });

  it("keeps commas and semicolons inside the URL's angle brackets", () => {
    const odd = "https://api.mergify.com/v1/repos/acme/widgets/logs?cursor=a,b;c&per_page=5";
    expect(findLink(`<${odd}>; rel="next", <${A}>; rel="prev"`, "next")).toBe(odd);
    expect(findLink(`<${A}>; rel="prev", <${odd}>; rel="next"`, "next")).toBe(odd);
  });

  it("returns the rels and params of each link", () => {
    expect(parseLinkHeader(`<${B}>; rel="next last"; title=x`)).toEqual([
      { url: B, rels: ["next", "last"], params: { rel: "next last", title: "x" } },
    ]);
  });

  it("takes the first link of a relation that appears twice", () => {
    expect(findLink(`<${B}>; rel="next", <${A}>; rel="next"`, "next")).toBe(B);
  });

  it.each([
    [null],
    [undefined],
    [""],
    ["   "],
    [`<${A}>; rel="prev"`],
    [`<${B}>; rel="nextpage"`],
    [`<${B}>; title="next"`],
    ["garbage, more garbage"],
    [`<${B}; rel="next"`],
  ])("finds no next in %j", (header) => {
    expect(findLink(header, "next")).toBeNull();
  });
});

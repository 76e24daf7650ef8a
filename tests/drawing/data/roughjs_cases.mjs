// Regenerates roughjs_expected.json with Rough.js 4.6.4 (what @excalidraw/excalidraw 0.18.1 bundles):
//   cp tests/drawing/data/roughjs_cases.mjs /tmp/excalidraw-ref/ && (cd /tmp/excalidraw-ref && node roughjs_cases.mjs) > tests/drawing/data/roughjs_expected.json
import rough from "roughjs/bundled/rough.esm.js";
const g = rough.generator();
const P = (d) => d.sets.map(s => ({type: s.type, d: g.opsToPath(s, 2)}));
const cases = {
  seq: (() => { const out=[]; let s=1234567; for (let i=0;i<5;i++){ s=Math.imul(48271,s); out.push(((2**31-1)&s)/2**31);} return out; })(),
  rect_hachure: P(g.rectangle(0,0,120,80,{seed:42,fill:"#ffc078",fillStyle:"hachure",hachureGap:8,fillWeight:1,strokeWidth:2,preserveVertices:true})),
  rect_cross_r2: P(g.rectangle(0,0,90,60,{seed:7,roughness:2,fill:"#a5d8ff",fillStyle:"cross-hatch",hachureGap:8,fillWeight:1,strokeWidth:2})),
  ellipse_solid: P(g.ellipse(50,30,100,60,{seed:99,fill:"#e9ecef",fillStyle:"solid",curveFitting:1,strokeWidth:2,preserveVertices:true})),
  ellipse_r0: P(g.ellipse(40,40,80,80,{seed:5,roughness:0,strokeWidth:1})),
  zigzag: P(g.polygon([[0,0],[100,10],[60,90]],{seed:3,fill:"#ffd8a8",fillStyle:"zigzag",hachureGap:8,fillWeight:1,strokeWidth:2})),
  curve_dashed: P(g.curve([[0,0],[50,40],[120,10],[160,60]],{seed:11,disableMultiStroke:true,strokeWidth:2.5,strokeLineDash:[8,10]})),
  curve_fill: P(g.curve([[0,0],[80,-20],[120,60],[10,70],[2,3]],{seed:12,fill:"#ffc078",fillStyle:"hachure",hachureGap:8,fillWeight:1})),
  path_round_rect: P(g.path("M 10 0 L 90 0 Q 100 0, 100 10 L 100 50 Q 100 60, 90 60 L 10 60 Q 0 60, 0 50 L 0 10 Q 0 0, 10 0",{seed:21,fill:"#ffffff",fillStyle:"solid",preserveVertices:true,strokeWidth:2})),
  path_hachure: P(g.path("M 10 0 L 90 0 Q 100 0, 100 10 L 100 50 Q 100 60, 90 60 L 10 60 Q 0 60, 0 50 L 0 10 Q 0 0, 10 0",{seed:22,fill:"#ffc078",fillStyle:"hachure",hachureGap:8,fillWeight:1,preserveVertices:true,strokeWidth:2})),
  linear: P(g.linearPath([[0,0],[30,80],[200,90]],{seed:31,strokeWidth:2})),
  line_long: P(g.line(0,0,600,40,{seed:33})),
};
console.log(JSON.stringify(cases));

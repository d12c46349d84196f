use specula::mj::*;
#[test]
fn probe() {
    let e = Model::from_xml_str("<mujoco><worldbody><geom type='sphere'/></worldbody></mujoco>");
    println!("{:?}", e.err());
    let m = Model::from_xml_str(r#"<mujoco><size memory="4K"/><worldbody><geom type="plane" size="1 1 1"/>
      <body pos="0 0 0.1"><freejoint/><geom type="box" size=".1 .1 .1"/></body>
      <body pos="0 0 0.3"><freejoint/><geom type="box" size=".1 .1 .1"/></body>
      <body pos="0 0 0.5"><freejoint/><geom type="box" size=".1 .1 .1"/></body></worldbody></mujoco>"#);
    println!("{:?}", m.as_ref().err());
    let m = m.unwrap();
    let mut d = Data::new(&m).unwrap();
    for i in 0..200 { let r = d.step(); if r.is_err() { println!("step {i}: {:?}", r); break; } }
    println!("warnings {:?}", d.warnings());
    let r = d.call(|m, _| unsafe { mujoco_sys::mj_stateSize(m, 1 << 20) });
    println!("{:?}", r);
    let r = d.reset(); println!("{:?}", r);
    for _ in 0..3 { let _ = d.step(); }
}

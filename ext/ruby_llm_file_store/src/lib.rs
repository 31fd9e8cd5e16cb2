use magnus::{Error, Ruby};
#[magnus::init]
fn init(_ruby: &Ruby) -> Result<(), Error> {
    Ok(())
}
